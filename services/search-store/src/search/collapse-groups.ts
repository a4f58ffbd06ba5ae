import { docValueOf } from '../index/doc-values-reader';
import type { SortPlan } from '../query/compile/plan-sort';
import type { SqlParams } from '../query/compile/sql-params';
import type { IndexReader } from '../query/index-reader';
import type { SearchRequest } from '../query/parse/search-request';
import { ShardQueryError } from '../query/shard-query-error';

/** Field types ES can collapse on (keyword and numeric doc values; dates are longs). */
const COLLAPSIBLE_NUMBERS = new Set([
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'date',
]);

/** The collapse field's type across the searched indices, refused as CollapseBuilder.build refuses it. */
export function collapseFieldType(readers: IndexReader[], request: SearchRequest): 'kw' | 'num' {
  const collapse = request.collapse!;
  if (request.rescore !== undefined && request.rescore.length > 0) {
    throw new ShardQueryError({
      type: 'search_exception',
      reason: 'cannot use `collapse` in conjunction with `rescore`',
    });
  }
  if (request.searchAfter !== undefined) {
    const only = request.sort.length === 1 ? request.sort[0] : undefined;
    if (only?.kind !== 'field' || only.field !== collapse.field) {
      throw new ShardQueryError({
        type: 'search_exception',
        reason:
          'Cannot use [collapse] in conjunction with [search_after] unless the search is sorted on the same field. Multiple sort fields are not allowed.',
      });
    }
  }
  const field = readers.map((r) => r.fields.get(collapse.field)).find((f) => f !== undefined);
  if (!field) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `no mapping found for \`${collapse.field}\` in order to collapse on`,
    });
  }
  if (field.type !== 'keyword' && !COLLAPSIBLE_NUMBERS.has(field.type)) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `collapse is not supported for the field [${collapse.field}] of the type [${field.type}]`,
    });
  }
  // The mapping parameter, read by its quoted name (the table of that name is index/'s alone).
  const DOC_VALUES = 'doc_values';
  if ((field.mapping as Record<string, unknown>)[DOC_VALUES] === false) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `cannot collapse on field \`${collapse.field}\` without \`${DOC_VALUES}\``,
    });
  }
  return field.type === 'keyword' ? 'kw' : 'num';
}

/**
 * The page's source relation under `collapse` (ES "Collapse search results"): of the matched rows
 * `q`, only each group's first in the request's order (the group is the field's doc value; documents
 * without one form one group), so from/size page over groups while hits.total counts documents.
 * Named `q` with the columns of `q`, for the page statement of execute-search.ts.
 */
export function collapsedSource(
  readers: IndexReader[],
  request: SearchRequest,
  params: SqlParams,
  plan: SortPlan,
): string {
  if (!request.collapse) return 'q';
  const column = collapseFieldType(readers, request);
  const cases = readers
    .map((r) => ({ reader: r, field: r.fields.get(request.collapse!.field) }))
    .filter((m) => m.field?.fieldId !== undefined)
    .map((m) => `WHEN ${params.add(m.reader.indexId)}::bigint THEN ${params.add(m.field!.fieldId)}::int`);
  const fieldId = cases.length === 0 ? 'NULL::int' : `CASE q.index_id ${cases.join(' ')} END`;
  const key = docValueOf('min', column, 'q.index_id', 'q.doc_key', fieldId);
  const orderBy = request.sort.length === 0 ? ['q.s DESC'] : plan.orderBy;
  return `(SELECT g.index_id, g.doc_key, g.s FROM (
      SELECT q.*, row_number() OVER (PARTITION BY q.ck ORDER BY ${[...orderBy, 'q.index_id ASC', 'q.doc_key ASC'].join(', ')}) AS gr
      FROM (SELECT q.index_id, q.doc_key, q.s${plan.expressions.map((e) => `, ${e}`).join('')}, ${key} AS ck FROM q) q
    ) g WHERE g.gr = 1)`;
}
