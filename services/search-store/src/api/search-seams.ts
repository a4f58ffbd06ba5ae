import { runAggregations } from '../aggs/run-aggregations';
import { adaptAggregationRunner } from '../query/aggregation-adapter';
import { adaptRuntimeFields } from '../query/runtime-field-adapter';
import type { SearchSeams } from '../query/search-seams';
import { compileRuntimeFields } from '../script/runtime-fields';

/**
 * The real aggregations and runtime fields (helper script-aggs) behind the search engine's seams.
 */
export function createSearchSeams(): SearchSeams {
  return {
    aggregations: {
      runAggregations: (client, ctx, matchedDocsSql, aggsBody) => {
        // Runtime fields are compiled per request from its runtime_mappings, for script-aggs to evaluate.
        const runtimeFields = ctx.runtimeMappings ? compileRuntimeFields(ctx.runtimeMappings) : undefined;
        const runner = adaptAggregationRunner((c, engineCtx, matched, aggs) =>
          runAggregations(c, { ...engineCtx, runtimeFields }, matched, aggs),
        );
        return runner.runAggregations(client, ctx, matchedDocsSql, aggsBody);
      },
    },
    runtimeFields: adaptRuntimeFields((mappings) => compileRuntimeFields(mappings)),
  };
}
