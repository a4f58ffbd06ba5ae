import { flattenedEntry, flattenedPrefix } from '../../mapping/flattened-value';
import type { IndexReader, ReaderField } from '../index-reader';
import type { Query } from '../query-ast';
import type { SqlParams } from './sql-params';

/** A query target inside a flattened field: the root field and the dotted key ('' for the root itself). */
export interface FlattenedTarget {
  field: ReaderField;
  key: string;
}

/**
 * `labels` (a flattened field) or `labels.release.version` (a key in it): the nearest enclosing
 * flattened field, as ES resolves keyed fields (FlattenedFieldMapper.KeyedFlattenedFieldType).
 */
export function flattenedTarget(reader: IndexReader, path: string): FlattenedTarget | undefined {
  const own = reader.fields.get(path);
  if (own) return own.type === 'flattened' ? { field: own, key: '' } : undefined;
  for (let dot = path.lastIndexOf('.'); dot > 0; dot = path.lastIndexOf('.', dot - 1)) {
    const field = reader.fields.get(path.slice(0, dot));
    if (field) return field.type === 'flattened' ? { field, key: path.slice(dot + 1) } : undefined;
  }
  return undefined;
}

/** term / terms / match: the values as keywords under the target (ES indexes the leaves' text). */
export function flattenedTermsCondition(
  params: SqlParams,
  target: FlattenedTarget,
  values: (string | number | boolean)[],
): string {
  return `kw = ANY(${params.add(values.map((v) => flattenedEntry(target.key, String(v))))}::text[])`;
}

/** range: keyword order (COLLATE "C") within the target's entries, as ES compares the leaves' bytes. */
export function flattenedRangeCondition(
  params: SqlParams,
  target: FlattenedTarget,
  query: Pick<Extract<Query, { kind: 'range' }>, 'gt' | 'gte' | 'lt' | 'lte'>,
): string {
  const conditions = [within(params, flattenedPrefix(target.key))];
  for (const [name, op] of [
    ['gt', '>'],
    ['gte', '>='],
    ['lt', '<'],
    ['lte', '<='],
  ] as const) {
    const value = query[name];
    if (value !== undefined && value !== null)
      conditions.push(`kw ${op} ${params.add(flattenedEntry(target.key, String(value)))}`);
  }
  return conditions.join(' AND ');
}

/** prefix: the target's entries starting with the value. */
export function flattenedPrefixCondition(
  params: SqlParams,
  target: FlattenedTarget,
  value: string,
  caseInsensitive: boolean,
): string {
  const prefix = flattenedEntry(target.key, value);
  if (!caseInsensitive) return within(params, prefix);
  return `${within(params, flattenedPrefix(target.key))} AND starts_with(lower(kw), ${params.add(prefix.toLowerCase())})`;
}

/** exists: any entry under the target. */
export function flattenedExistsCondition(params: SqlParams, target: FlattenedTarget): string {
  return within(params, flattenedPrefix(target.key));
}

/** Entries starting with `prefix`: the lower bound lets the btree on (field, kw) seek to them. */
function within(params: SqlParams, prefix: string): string {
  const p = params.add(prefix);
  return `kw >= ${p} AND starts_with(kw, ${p})`;
}
