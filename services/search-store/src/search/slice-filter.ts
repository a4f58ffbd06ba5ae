import { docValueOf } from '../index/doc-values-reader';
import { isNumericType } from '../mapping/field-types';
import type { IndexReader } from '../query/index-reader';
import type { SliceSpec } from '../query/parse/parse-fetch-options';
import { ShardQueryError } from '../query/shard-query-error';
import type { SqlParams } from '../query/compile/sql-params';

/** ES IndexSettings.MAX_SLICES_PER_SCROLL's default. */
export const DEFAULT_MAX_SLICES = 1024;

function failure(reason: string): ShardQueryError {
  return new ShardQueryError({ type: 'illegal_argument_exception', reason });
}

/** SliceBuilder#toFilter's checks: the slice count against `index.max_slices_per_scroll`, the field's type. */
function checkSlice(readers: IndexReader[], slice: SliceSpec): void {
  for (const reader of readers) {
    const raw = reader.settings['index.max_slices_per_scroll'];
    const limit = raw === undefined ? DEFAULT_MAX_SLICES : Number(raw);
    if (slice.max > limit) {
      throw failure(
        `The number of slices [${slice.max}] is too large. It must be less than [${limit}]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.`,
      );
    }
    if (slice.field === undefined || slice.field === '_id') continue;
    const field = reader.fields.get(slice.field);
    if (!field) throw failure(`field ${slice.field} not found`);
    if (!(isNumericType(field.type) || field.type === 'date')) {
      throw failure(`cannot load numeric doc values on ${slice.field}`);
    }
  }
}

/**
 * The matched documents of one slice: `slice.id` of `slice.max` disjoint parts whose union is every
 * match (ES "Sliced scroll"). Without a field (or with `_id`) a document's part is its document key
 * modulo max, which spreads documents evenly as ES's hash of `_id` does; with a numeric or date field
 * it is the field's smallest value modulo max, and a document without a value is in slice 0, as
 * ES's DocValuesSliceQuery puts it (hash of 0).
 */
export function sliceMatched(
  readers: IndexReader[],
  matched: string,
  slice: SliceSpec,
  params: SqlParams,
): string {
  checkSlice(readers, slice);
  const max = params.add(slice.max);
  const id = params.add(slice.id);
  if (slice.field === undefined || slice.field === '_id') {
    return `SELECT * FROM (${matched}) sl WHERE mod(sl.doc_key, ${max}::bigint) = ${id}::bigint`;
  }
  const cases = readers
    .map((reader) => {
      const fieldId = reader.fields.get(slice.field!)?.fieldId;
      return `WHEN ${params.add(reader.indexId)}::bigint THEN ${fieldId === undefined ? 'NULL' : params.add(fieldId)}::int`;
    })
    .join(' ');
  const value = docValueOf('min', 'num', 'sl.index_id', 'sl.doc_key', `(CASE sl.index_id ${cases} END)`);
  const key = `coalesce(floor(${value})::bigint, 0)`;
  return `SELECT * FROM (${matched}) sl WHERE mod(mod(${key}, ${max}::bigint) + ${max}::bigint, ${max}::bigint) = ${id}::bigint`;
}
