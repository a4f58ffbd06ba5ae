import { runAggregations } from '../aggs/run-aggregations';
import { adaptAggregationRunner } from '../query/aggregation-adapter';
import { adaptRuntimeFields } from '../query/runtime-field-adapter';
import type { SearchSeams } from '../query/search-seams';
import { compileRuntimeFields } from '../script/runtime-fields';

/**
 * The real aggregations and runtime fields (helper script-aggs) behind the search engine's seams.
 * Runtime fields inside aggregations are not passed yet (the seam carries no runtime_mappings).
 */
export function createSearchSeams(): SearchSeams {
  return {
    aggregations: adaptAggregationRunner((client, ctx, matched, aggs) =>
      runAggregations(client, { ...ctx, runtimeFields: undefined }, matched, aggs),
    ),
    runtimeFields: adaptRuntimeFields((mappings) => compileRuntimeFields(mappings)),
  };
}
