import type { MatchedSet } from './agg-context';
import type { AggRun } from './agg-run';
import type { AggNode } from './agg-types';
import { computeColumnarTree } from './columnar-tree';

/**
 * Aggregations over the column-wise doc values (migration 0027) instead of SQL over the row-wise ones,
 * at the top level of the request, over every document or over the matched doc keys: `terms`
 * (keyword, ip, unsigned_long, numeric, date, boolean), `histogram` and `date_histogram` (fixed and
 * calendar intervals in any zone), `range` and `date_range`, nested in one another to any depth, with
 * the metrics avg/sum/min/max/stats/value_count, `cardinality` and `percentiles` as leaves at any
 * level or alone (columnar-tree.ts walks them; columnar-terms.ts, columnar-histogram.ts,
 * columnar-range.ts and columnar-metrics.ts compute each kind). The chunks are read a page at a time,
 * so memory holds a page of chunks plus a slot per bucket, never a row per value. Results equal the
 * SQL path's (terms-agg.ts, histogram-agg.ts, range-agg.ts, metric-agg.ts, cardinality-agg.ts,
 * percentiles-agg.ts). Anything else returns undefined and runs the SQL path: nested paths, runtime,
 * flattened, date_nanos or unmapped fields, types differing between indices, `missing`, ordering
 * terms by a sub-aggregation, pipelines and other aggregation types anywhere in the tree, and
 * calendar intervals whose zone's rules differ between ICU and Postgres on the dates involved.
 */

/** How many top-level aggregations the columns answered, by type (tests, diagnostics). */
export const columnarAnswers = new Map<string, number>();

/** Computes `node` at the top level column-wise, or returns undefined (the caller runs the SQL path). */
export async function computeColumnar(
  run: AggRun,
  node: AggNode,
  matchedSet: MatchedSet,
): Promise<Map<string, unknown> | undefined> {
  if (run.ctx.columnar === false || (run.ctx.nested?.paths.length ?? 0) > 0) return undefined;
  const answer = await computeColumnarTree(run, node, matchedSet);
  if (!answer) return undefined;
  columnarAnswers.set(node.type, (columnarAnswers.get(node.type) ?? 0) + 1);
  return new Map([['', answer.result]]);
}
