import { EsError } from '@acme/common';
import type { AggNode } from './agg-types';

/**
 * Elasticsearch's `search.aggs.max_nested_depth` (8.19 and 9.x, default 50) refuses deeper trees at
 * parse time. Ours is lower: each level here nests its parent's SQL once more, so planning grows with
 * the cube of the depth (measured on a two-document index: 10 levels 0.3 s, 20 levels 1.3 s, 30 levels
 * 5.6 s, 200 levels minutes).
 */
export const MAX_AGG_DEPTH = 10;

/** Aggregations in one request, all levels counted (Elasticsearch has no such limit; each is a statement here). */
export const MAX_AGGS = 100;

/**
 * How many times one statement may repeat the matched documents' SQL. A `filters` aggregation repeats its
 * parent's documents once per filter (and once more for the other bucket), a `missing` value once more,
 * and nesting multiplies: 20 filters under 20 filters would build 400 copies, 3 levels of them 8,000.
 */
export const MAX_SQL_COPIES = 512;

export function aggDepthExceeded(): EsError {
  return new EsError(
    'parsing_exception',
    `The nested depth of the aggregations exceeds the maximum nested depth for aggregations of [${MAX_AGG_DEPTH}] set in [search.aggs.max_nested_depth]`,
  );
}

/** Copies of its parent's documents a bucket aggregation's SQL holds (aggs/*-agg.ts membership). */
function copiesOf(node: AggNode): number {
  if (node.type === 'filters') return node.filters.length + (node.otherBucketKey === undefined ? 0 : 1);
  if (node.type === 'filter' || node.type === 'top_hits' || node.type === 'pipeline') return 1;
  if (node.type === 'nested' || node.type === 'reverse_nested') return 1;
  // Each source reads the documents, once more for missing_bucket; sub-aggregations read them again.
  if (node.type === 'composite') return node.spec.sources.length * 3;
  return node.spec.missing === undefined || node.spec.missing === null ? 1 : 2;
}

/** Checks the whole tree against MAX_AGGS and MAX_SQL_COPIES (its depth is checked while parsing). */
export function checkAggLimits(nodes: AggNode[]): void {
  let count = 0;
  const pending = nodes.map((node) => ({ node, copies: 1, path: node.name }));
  for (let next = pending.pop(); next; next = pending.pop()) {
    count += 1;
    if (count > MAX_AGGS) {
      throw new EsError(
        'illegal_argument_exception',
        `Trying to create too many aggregations. Must be less than or equal to: [${MAX_AGGS}]. This limit is search-store's; Elasticsearch has none.`,
      );
    }
    const copies = next.copies * copiesOf(next.node);
    if (copies > MAX_SQL_COPIES) {
      throw new EsError(
        'illegal_argument_exception',
        `Aggregation [${next.path}] would repeat the matched documents [${copies}] times in one statement; search-store allows [${MAX_SQL_COPIES}]. Use fewer filters or missing values in nested aggregations.`,
      );
    }
    for (const sub of next.node.subs) pending.push({ node: sub, copies, path: `${next.path}>${sub.name}` });
  }
}
