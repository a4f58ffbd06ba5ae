import type { Pool, PoolClient } from 'pg';
import { compileQuery } from './compile-query';
import type { IndexReader } from './index-reader';
import { parseQuery } from './parse-query';
import type { AggregationContext, AggregationRunner, MatchedDocsSql, RuntimeFields } from './search-seams';
import { SqlParams } from './sql-params';

/**
 * Adapts an aggregation engine with helper "script-aggs"'s shape (`runAggregations(client, ctx, matched,
 * aggs)` with a synchronous `translateQuery`) to the search engine's AggregationRunner seam. Query
 * compilation is asynchronous here (term lookups), so every query inside `filter`/`filters` aggregations
 * is compiled up front and `translateQuery` answers from that table.
 */
export interface EngineAggField {
  indexId: string;
  indexName: string;
  fieldId: number;
  type: string;
}

export interface EngineAggContext {
  indexIds: string[];
  fieldsByPath(path: string): EngineAggField[];
  translateQuery(query: unknown): { sql: string; params: unknown[] };
  runtimeFields?: unknown;
  now?: number;
}

export type EngineAggRunner = (
  client: Pool | PoolClient,
  ctx: EngineAggContext,
  matched: { sql: string; params: unknown[]; scored?: boolean; all?: boolean },
  aggsBody: unknown,
) => Promise<Record<string, unknown>>;

export function adaptAggregationRunner(
  run: EngineAggRunner,
  runtimeFieldsFor?: (ctx: AggregationContext) => unknown,
): AggregationRunner {
  return {
    async runAggregations(client, ctx, matchedDocsSql: MatchedDocsSql, aggsBody) {
      const translated = new Map<string, { sql: string; params: unknown[] }>();
      for (const query of collectAggQueries(aggsBody)) {
        const key = JSON.stringify(query);
        if (!translated.has(key))
          translated.set(
            key,
            await translateForReaders(client, ctx.readers, query, ctx.now, ctx.runtimeFields),
          );
      }
      const engineCtx: EngineAggContext = {
        indexIds: ctx.readers.map((r) => r.indexId),
        fieldsByPath: (path) =>
          ctx.readers.flatMap((r) => {
            const field = r.fields.get(path);
            return field?.fieldId === undefined
              ? []
              : [{ indexId: r.indexId, indexName: r.name, fieldId: field.fieldId, type: field.type }];
          }),
        translateQuery: (query) => {
          const found = translated.get(JSON.stringify(query));
          if (!found) throw new Error('aggregation query was not compiled up front');
          return found;
        },
        runtimeFields: runtimeFieldsFor?.(ctx),
        now: ctx.now,
      };
      return run(
        client,
        engineCtx,
        {
          sql: `SELECT doc_key, s AS score FROM (${matchedDocsSql.text}) m`,
          params: matchedDocsSql.values,
          scored: true,
          all: matchedDocsSql.allDocs === true,
        },
        aggsBody,
      );
    },
  };
}

/** Any query → SQL returning the matching `doc_key`s over the searched indices (no scores). */
async function translateForReaders(
  client: Pool | PoolClient,
  readers: IndexReader[],
  raw: unknown,
  now: number,
  runtime?: RuntimeFields,
): Promise<{ sql: string; params: unknown[] }> {
  const query = parseQuery(raw);
  const params = new SqlParams();
  const parts: string[] = [];
  for (const reader of readers) {
    parts.push(
      `SELECT doc_key FROM (${await compileQuery({ db: client, reader, params, now, runtime }, query, 1, false)}) q${parts.length}`,
    );
  }
  const sql = parts.length > 0 ? parts.join(' UNION ALL ') : 'SELECT NULL::bigint AS doc_key WHERE false';
  return { sql, params: params.values };
}

/** The queries of `filter` and `filters` aggregations, at any depth of `aggs`/`aggregations`. */
export function collectAggQueries(aggsBody: unknown, out: unknown[] = []): unknown[] {
  if (aggsBody === null || typeof aggsBody !== 'object') return out;
  for (const agg of Object.values(aggsBody as Record<string, unknown>)) {
    if (agg === null || typeof agg !== 'object') continue;
    const spec = agg as Record<string, unknown>;
    if (spec.filter !== undefined) out.push(spec.filter);
    const filters = (spec.filters as Record<string, unknown> | undefined)?.filters;
    if (Array.isArray(filters)) out.push(...filters);
    else if (filters && typeof filters === 'object') out.push(...Object.values(filters));
    collectAggQueries(spec.aggs, out);
    collectAggQueries(spec.aggregations, out);
  }
  return out;
}
