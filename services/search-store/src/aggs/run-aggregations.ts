import type { AggContext, MatchedSet, Queryable } from './agg-context';
import { AggRun, type ComputeAgg } from './agg-run';
import { computeCardinality } from './cardinality-agg';
import { computeColumnar } from './columnar-aggs';
import { computeComposite } from './composite-agg';
import { computeFilter, computeFilters } from './filter-agg';
import { computeHistogram } from './histogram-agg';
import { computeMetric } from './metric-agg';
import { computeNested } from './nested-agg';
import { parseAggs } from './parse-aggs';
import { computePercentiles } from './percentiles-agg';
import { applyPipelines } from './pipeline/apply-pipelines';
import { computeRange } from './range-agg';
import { computeRareTerms } from './rare-terms-agg';
import { computeSignificantTerms } from './significant-terms-agg';
import { byName } from './render-bucket';
import type { DocSet } from './sql-builder';
import { computeTerms } from './terms-agg';
import { computeTopHits } from './top-hits-agg';
import { computeGeoBounds } from './geo-bounds-agg';
import { computeGeoCentroid } from './geo-centroid-agg';
import { computeGeohashGrid } from './geohash-grid-agg';
import { computeGeoDistanceAgg } from './geo-distance-agg';

/** Each aggregation type to the function that computes it (metrics by default). */
const computeNode: ComputeAgg = (run, node, docs, groups) => {
  switch (node.type) {
    case 'terms':
      return computeTerms(run, node, docs, groups);
    case 'rare_terms':
      return computeRareTerms(run, node, docs, groups);
    case 'significant_terms':
    case 'significant_text':
      return computeSignificantTerms(run, node, docs, groups);
    case 'filter':
      return computeFilter(run, node, docs, groups);
    case 'filters':
      return computeFilters(run, node, docs, groups);
    case 'range':
    case 'date_range':
      return computeRange(run, node, docs, groups);
    case 'histogram':
    case 'date_histogram':
      return computeHistogram(run, node, docs, groups);
    case 'top_hits':
      return computeTopHits(run, node, docs, groups);
    case 'cardinality':
      return computeCardinality(run, node, docs, groups, node.spec.precisionThreshold);
    case 'percentiles':
      return computePercentiles(run, node, docs, groups);
    case 'composite':
      return computeComposite(run, node, docs, groups);
    case 'geo_bounds':
      return computeGeoBounds(run, node, docs, groups);
    case 'geo_centroid':
      return computeGeoCentroid(run, node, docs, groups);
    case 'geohash_grid':
      return computeGeohashGrid(run, node, docs, groups);
    case 'geo_distance':
      return computeGeoDistanceAgg(run, node, docs, groups);
    case 'nested':
    case 'reverse_nested':
      return computeNested(run, node, docs, groups);
    case 'pipeline':
      // Pipelines read the other aggregations' output: applyPipelines, once everything is computed.
      return Promise.resolve(new Map());
    default:
      return computeMetric(run, node, docs, groups);
  }
};

/**
 * Computes the `aggs` of a search over the matched documents, in SQL over doc values: one query per
 * aggregation node whatever the number of buckets (sub-aggregations run for all parent buckets at once).
 * Returns the `aggregations` object of the response.
 */
export async function runAggregations(
  client: Queryable,
  ctx: AggContext,
  matched: MatchedSet,
  aggsBody: unknown,
): Promise<Record<string, unknown>> {
  const nodes = parseAggs(aggsBody);
  const top: DocSet = (b) =>
    `SELECT m.doc_key, ''::text AS g FROM (${b.fragment(matched.sql, matched.params)}) m`;
  // Top-level terms and metrics read the column-wise doc values where they can (columnar-aggs.ts).
  const run = new AggRun(
    client,
    ctx,
    matched,
    async (r, node, docs, groups) =>
      (docs === top ? await computeColumnar(r, node, matched) : undefined) ??
      computeNode(r, node, docs, groups),
  );
  // Nested objects have doc values of their own: with nested paths, "every document" is not every key.
  top.allDocs = matched.all === true && (ctx.nested?.paths.length ?? 0) === 0;
  const results = await run.computeAll(nodes, top, ['']);
  const out = results.get('') ?? byName();
  applyPipelines(nodes, out, ctx.scriptDeadline ?? Date.now() + 5_000);
  return out;
}
