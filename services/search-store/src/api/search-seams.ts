import { runAggregations } from '../aggs/run-aggregations';
import { adaptAggregationRunner } from '../query/aggregation-adapter';
import { adaptRuntimeFields } from '../query/runtime-field-adapter';
import type { RuntimeRelation, SearchSeams } from '../query/search-seams';
import { DEFAULT_MAX_RUNTIME_DOCS } from '../aggs/load-document-values';
import { loadRuntimeRelation } from '../query/runtime-relation';
import { compileRuntimeFields } from '../script/runtime-fields';

/**
 * The real aggregations and runtime fields (helper script-aggs) behind the search engine's seams.
 */
export function createSearchSeams(
  options: { maxRuntimeDocs: number } = { maxRuntimeDocs: DEFAULT_MAX_RUNTIME_DOCS },
): SearchSeams {
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
    runtimeFields: {
      compile(runtimeMappings, readers) {
        const compiled = adaptRuntimeFields((mappings) => compileRuntimeFields(mappings)).compile(
          runtimeMappings,
          readers,
        );
        const fields = compileRuntimeFields(runtimeMappings);
        const limits = { maxRuntimeDocs: options.maxRuntimeDocs, scriptDeadline: Date.now() + 5_000 };
        // One evaluation per index and field per request, shared by every query leaf and sort key.
        const relations = new Map<string, Promise<RuntimeRelation>>();
        return {
          ...compiled,
          relation(client, reader, name, matched) {
            // A restricted relation is keyed by its SQL too: a query leaf and a sort on the same field
            // need different documents.
            const key = `${reader.indexId}\u0000${name}\u0000${matched?.sql ?? ''}`;
            let relation = relations.get(key);
            if (!relation) {
              relation = loadRuntimeRelation(client, reader, fields, name, limits, matched);
              relations.set(key, relation);
            }
            return relation;
          },
        };
      },
    },
  };
}
