import type { Pool, PoolClient } from 'pg';
import { nestedDocValueOf } from '../../index/nested-docs-reader';
import type { IndexReader } from '../index-reader';
import { nestedScopeReader } from '../nested-scope';
import type { SortKey } from '../parse/search-request';
import { compileQuery } from './compile-query';
import { checkNestedPath } from './compile-nested';
import { shardFailure } from './multi-term-rewrite';
import type { SqlParams } from './sql-params';

/** Each nested sort filter compiled per index up front (compiling reads the index): `${key}:${indexId}` → SQL. */
export type NestedSortFilters = Map<string, string>;

/** ES FieldSortBuilder with `nested`: the path must be a nested object of every index that maps it. */
export async function compileNestedSortFilters(
  db: Pool | PoolClient,
  readers: IndexReader[],
  keys: SortKey[],
  params: SqlParams,
  now: number,
): Promise<NestedSortFilters> {
  const out: NestedSortFilters = new Map();
  for (const [i, key] of keys.entries()) {
    if (key.kind !== 'field' || !key.nested) continue;
    for (const reader of readers) {
      const ctx = { db, reader, params, now };
      if (!checkNestedPath(ctx, key.nested.path))
        throw shardFailure(
          `[nested] failed to find nested object under path [${key.nested.path}]`,
          'illegal_state_exception',
        );
      if (!key.nested.filter) continue;
      const sql = await compileQuery(
        { ...ctx, reader: nestedScopeReader(reader, key.nested.path) },
        key.nested.filter,
        1,
        false,
      );
      out.set(`${i}:${reader.indexId}`, `SELECT doc_key FROM (${sql}) f`);
    }
  }
  return out;
}

/**
 * The sort value of a field sort with `nested` (ES MultiValueMode over the objects' values: min/max,
 * and sum/avg/median for numbers), the objects narrowed by the per-index filter.
 */
export function nestedSortValue(
  key: Extract<SortKey, { kind: 'field' }>,
  index: number,
  column: 'num' | 'kw',
  mapped: { reader: IndexReader; fieldId: number | undefined }[],
  params: SqlParams,
  filters: NestedSortFilters,
): string {
  const mode = key.mode;
  const basic = mode === 'min' || mode === 'max' ? mode : key.order === 'asc' ? 'min' : 'max';
  const agg =
    column === 'kw' || mode === undefined || mode === 'min' || mode === 'max'
      ? `${basic}(v.${column})`
      : mode === 'median'
        ? `percentile_cont(0.5) WITHIN GROUP (ORDER BY v.num)`
        : `${mode}(v.num)::float8`;
  const parts = mapped
    .filter((m) => m.fieldId !== undefined)
    .map(({ reader, fieldId }) => {
      const idx = `${params.add(reader.indexId)}::bigint`;
      const value = nestedDocValueOf(
        agg,
        column,
        idx,
        'q.doc_key',
        `${params.add(fieldId)}::int`,
        `${params.add(key.nested!.path)}::text`,
        filters.get(`${index}:${reader.indexId}`),
      );
      return `WHEN ${idx} THEN ${value}`;
    });
  return parts.length === 0 ? 'NULL' : `CASE q.index_id ${parts.join(' ')} END`;
}
