import { EsError } from '@acme/common';
import { docValueOf } from '../../index/doc-values-reader';
import type { IndexReader } from '../index-reader';
import type { RuntimeSortKey } from './plan-runtime-sort';
import { formatFloat } from '../score/bm25';
import { formatIpKey, ipKey } from '../../mapping/ip-value';
import { dateNanosKey, DEFAULT_DATE_NANOS_FORMAT, parseDateNanos } from '../../mapping/date-nanos';
import { RawJson } from '../../http/raw-json';
import {
  unsignedLongFromKey,
  unsignedLongJson,
  unsignedLongKey,
  unsignedLongOf,
} from '../../mapping/unsigned-long';
import type { SortKey } from '../parse/search-request';
import { ShardQueryError } from '../shard-query-error';
import type { SqlParams } from './sql-params';
import { nestedSortValue, type NestedSortFilters } from './compile-nested-sort';

/**
 * Sorting (ES "Sort search results"): `_score`, `_doc`, and fields through their doc values (min for
 * asc, max for desc on multi-valued fields; missing values last unless `_first`), search_after, and the
 * sort values printed in hits. Text fields cannot be sorted; unmapped fields need `unmapped_type`.
 */
export interface SortPlan {
  expressions: string[];
  orderBy: string[];
  /** How to print each sort value in hits[i].sort. */
  kinds: ('score' | 'doc' | 'shard' | 'num' | 'kw' | 'bool' | 'ip' | 'ul' | 'nanos' | 'geo')[];
  keys: SortKey[];
}

export function planSort(
  readers: IndexReader[],
  keys: SortKey[],
  params: SqlParams,
  runtimeKeys: Map<number, RuntimeSortKey> = new Map(),
  nestedFilters: NestedSortFilters = new Map(),
): SortPlan {
  const plan: SortPlan = { expressions: [], orderBy: [], kinds: [], keys };
  keys.forEach((key, i) => {
    const dir = key.order === 'asc' ? 'ASC' : 'DESC';
    if (key.kind === 'score') {
      plan.expressions.push(`q.s AS k${i}`);
      plan.orderBy.push(`k${i} ${dir}`);
      plan.kinds.push('score');
      return;
    }
    if (key.kind === 'doc') {
      plan.expressions.push(`q.doc_key AS k${i}`);
      plan.orderBy.push(`q.index_id ${dir}, k${i} ${dir}`);
      plan.kinds.push('doc');
      return;
    }
    if (key.kind === 'shard_doc') {
      plan.expressions.push(`${shardDocOf(readers, params)} AS k${i}`);
      plan.orderBy.push(`k${i} ${dir}`);
      plan.kinds.push('shard');
      return;
    }
    if (key.kind === 'geo_distance') {
      // Distances planned by plan-geo-sort.ts; never null (a document without a point is +Infinity).
      plan.expressions.push(`${runtimeKeys.get(i)?.expression ?? "'Infinity'::float8"} AS k${i}`);
      plan.orderBy.push(`k${i} ${dir}`);
      plan.kinds.push('geo');
      return;
    }
    const runtimeKey = runtimeKeys.get(i);
    // A nested object's field sorts only through its `nested` path (compile-nested-sort.ts).
    const mapped = readers.map((r) => ({
      reader: r,
      field: (key.nested ? (r.allFields ?? r.fields) : r.fields).get(key.field),
    }));
    const some = mapped.find((m) => m.field)?.field;
    if (!some && !key.unmappedType && !runtimeKey) {
      throw new ShardQueryError({
        type: 'query_shard_exception',
        reason: `No mapping found for [${key.field}] in order to sort on`,
      });
    }
    const type = runtimeKey?.type ?? some?.type ?? key.unmappedType!;
    if (type === 'text') {
      throw new ShardQueryError({
        type: 'illegal_argument_exception',
        reason: `Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${key.field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
      });
    }
    if (type === 'geo_point') {
      // ES AbstractLatLonPointIndexFieldData.sortField.
      throw new ShardQueryError({
        type: 'illegal_argument_exception',
        reason: `can't sort on geo_point field without using specific sorting feature, like geo_distance`,
      });
    }
    // ip doc values are keys in `kw` whose byte order is the address order (mapping/ip-value.ts).
    const column = KEYED_TYPES.has(type) ? 'kw' : 'num';
    const fieldIdOf = (): string => {
      const cases = mapped
        .filter((m) => m.field?.fieldId !== undefined)
        .map((m) => `WHEN ${params.add(m.reader.indexId)}::bigint THEN ${params.add(m.field!.fieldId)}::int`);
      return cases.length === 0 ? 'NULL::int' : `CASE q.index_id ${cases.join(' ')} END`;
    };
    const agg = (key.mode ?? (key.order === 'asc' ? 'min' : 'max')) === 'min' ? 'min' : 'max';
    const value =
      runtimeKey?.expression ??
      (key.nested
        ? nestedSortValue(
            key,
            i,
            column,
            mapped.map((m) => ({ reader: m.reader, fieldId: m.field?.fieldId })),
            params,
            nestedFilters,
          )
        : docValueOf(agg, column, 'q.index_id', 'q.doc_key', fieldIdOf()));
    const missing = key.missing;
    // A custom `missing` value sorts (and prints) in place of the absent one.
    const expression =
      typeof missing === 'object'
        ? `coalesce(${value}, ${params.add(column === 'kw' ? kwSortValue(type, missing.value) : Number(missing.value))}::${column === 'kw' ? 'text' : 'float8'})`
        : value;
    plan.expressions.push(`${expression} AS k${i}`);
    plan.orderBy.push(`k${i} ${dir} NULLS ${missing === '_first' ? 'FIRST' : 'LAST'}`);
    plan.kinds.push(
      type === 'keyword'
        ? 'kw'
        : type === 'ip'
          ? 'ip'
          : type === 'unsigned_long'
            ? 'ul'
            : type === 'date_nanos'
              ? 'nanos'
              : type === 'boolean'
                ? 'bool'
                : 'num',
    );
  });
  return plan;
}

/**
 * `_shard_doc` as ES encodes it, shard index << 32 | doc: here the index's rank by id among the
 * searched indices, then the document key (unique while doc keys stay below 2^32 per index).
 */
function shardDocOf(readers: IndexReader[], params: SqlParams): string {
  // One index: rank 0, so the value is the doc key itself, and said so the planner can walk the
  // documents' primary key in order (a scroll page is then a range scan that stops at the page).
  if (readers.length <= 1) return 'q.doc_key';
  const ranked = [...readers].sort((a, b) => Number(a.indexId) - Number(b.indexId));
  const cases = ranked.map((r, rank) => `WHEN ${params.add(r.indexId)}::bigint THEN ${rank}`);
  const rank = cases.length === 0 ? '0' : `CASE q.index_id ${cases.join(' ')} ELSE 0 END`;
  return `((${rank})::bigint * 4294967296 + q.doc_key)`;
}

/** Types whose doc values are keys in `kw`: keywords, ip, unsigned_long and date_nanos (mapping/). */
const KEYED_TYPES: ReadonlySet<string> = new Set(['keyword', 'ip', 'unsigned_long', 'date_nanos']);

/** search_after: the rows strictly after the given sort values, in the sort order (nulls last). */
export function searchAfterCondition(plan: SortPlan, given: unknown[], params: SqlParams): string {
  if (given.length !== plan.keys.length) {
    throw new EsError(
      'illegal_argument_exception',
      `search_after has ${given.length} value(s) but sort has ${plan.keys.length}.`,
    );
  }
  const column = (i: number): string =>
    plan.kinds[i] === 'doc' ? 'q.doc_key' : plan.kinds[i] === 'score' ? 'q.s' : `k${i}`;
  const cast = (i: number): string =>
    plan.kinds[i] === 'shard'
      ? 'bigint'
      : plan.kinds[i] === 'kw' ||
          plan.kinds[i] === 'ip' ||
          plan.kinds[i] === 'ul' ||
          plan.kinds[i] === 'nanos'
        ? 'text'
        : plan.kinds[i] === 'score'
          ? 'float4'
          : plan.kinds[i] === 'doc'
            ? 'bigint'
            : 'float8';
  // An ip sort value is the address as printed; compared as its doc-value key.
  const after = given.map((v, i) => {
    const kind = plan.kinds[i];
    if (v === null || (kind !== 'ip' && kind !== 'ul' && kind !== 'nanos')) return v;
    return kwSortValue(kind === 'ip' ? 'ip' : kind === 'ul' ? 'unsigned_long' : 'date_nanos', v);
  });
  const ors: string[] = [];
  for (let i = 0; i < after.length; i++) {
    const eqs: string[] = [];
    for (let j = 0; j < i; j++) {
      eqs.push(
        after[j] === null ? `${column(j)} IS NULL` : `${column(j)} = ${params.add(after[j])}::${cast(j)}`,
      );
    }
    const key = plan.keys[i]!;
    const op = key.order === 'asc' ? '>' : '<';
    const value = after[i];
    // Doc keys are never null; leaving out the IS NULL arm lets the doc-order bound reach the index
    // (Postgres 15 does not drop `IS NULL` on a NOT NULL column).
    const neverNull = plan.kinds[i] === 'shard' || plan.kinds[i] === 'doc';
    const strict =
      value === null
        ? 'false'
        : neverNull
          ? `${column(i)} ${op} ${params.add(value)}::${cast(i)}`
          : `(${column(i)} ${op} ${params.add(value)}::${cast(i)} OR ${column(i)} IS NULL)`;
    ors.push([...eqs, strict].join(' AND '));
  }
  return `(${ors.join(' OR ')})`;
}

export function sortValue(
  kind: SortPlan['kinds'][number],
  value: unknown,
  row: Record<string, unknown>,
): unknown {
  if (kind === 'score') return formatFloat(row.s as number);
  if (kind === 'doc') return Number(value);
  if (value === null || value === undefined) return null;
  if (kind === 'kw') return value;
  if (kind === 'ip') return formatIpKey(String(value));
  // ES writes a non-finite double as a string (Jackson's QUOTE_NON_NUMERIC_NUMBERS).
  if (kind === 'geo') return Number.isFinite(Number(value)) ? Number(value) : String(Number(value));
  if (kind === 'ul') return unsignedLongJson(unsignedLongFromKey(String(value)));
  // date_nanos sort values are the nanoseconds, a long past 2^53 (ES 240_date_nanos).
  if (kind === 'nanos') return new RawJson(BigInt(String(value)).toString());
  return Number(value);
}

/** A `kw` sort value given by the client (`missing`, search_after): an ip as its doc-value key. */
function kwSortValue(type: string, value: unknown): string {
  if (type === 'date_nanos') {
    // Nanoseconds as given back in hits (exact as a string), else a date in the default format.
    const text = String(value);
    if (/^\d{1,19}$/.test(text)) return dateNanosKey(BigInt(text));
    const parsed = parseDateNanos(value, DEFAULT_DATE_NANOS_FORMAT);
    if (!parsed.ok)
      throw new EsError(
        'illegal_argument_exception',
        `failed to parse date field [${text}] with format [${DEFAULT_DATE_NANOS_FORMAT}]`,
      );
    return dateNanosKey(parsed.nanos);
  }
  if (type === 'unsigned_long') {
    // A JSON number past 2^53 arrives as a double: send such values as strings to be exact.
    const exact = unsignedLongOf(value);
    if (exact === undefined)
      throw new EsError(
        'illegal_argument_exception',
        `Value [${String(value)}] is out of range for unsigned long`,
      );
    return unsignedLongKey(exact);
  }
  if (type !== 'ip') return String(value);
  const key = ipKey(String(value));
  if (key === undefined)
    throw new EsError('illegal_argument_exception', `'${String(value)}' is not an IP string literal.`);
  return key;
}

/** `fields: [...]`: values of mapped fields from `_source`, always arrays, dates in ISO form. */
