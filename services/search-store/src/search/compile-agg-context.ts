import type { Pool, PoolClient } from 'pg';
import type { AggContext } from '../aggs/agg-context';
import { compileQuery } from '../query/compile/compile-query';
import { fieldsByPath } from '../query/compile/fields-by-path';
import type { IndexReader } from '../query/index-reader';
import { parseQuery } from '../query/parse/parse-query';
import type { SearchRuntimeFields } from '../query/compile/search-runtime-fields';
import { SqlParams } from '../query/compile/sql-params';
import { everyFieldReader } from '../query/nested-scope';
import { listNestedPaths, objectMappingAt } from '../mapping/nested-mapping';

/** The nested paths of the searched indices, for the nested and reverse_nested aggregations. */
function nestedPathsOf(readers: IndexReader[]): AggContext['nested'] {
  return {
    paths: readers.flatMap((r) => listNestedPaths(r.mappings)),
    kindOf: (path) => {
      const found = readers.map((r) => objectMappingAt(r.mappings, path)).filter((m) => m !== undefined);
      if (found.length === 0) return undefined;
      return found.some((m) => m.type === 'nested') ? 'nested' : 'object';
    },
  };
}

/**
 * The context aggregations (aggs/) run in for one search over `readers`. Aggregations build their SQL
 * synchronously, while compiling a query may read the index (term lookups), so every query inside a
 * `filter` or `filters` aggregation is compiled here, up front, and `translateQuery` answers from
 * that table.
 */
export async function compileAggContext(
  db: Pool | PoolClient,
  readers: IndexReader[],
  aggsBody: Record<string, unknown>,
  options: { now: number; runtime?: SearchRuntimeFields; maxRuntimeDocs?: number },
): Promise<AggContext> {
  const { now, runtime } = options;
  const translated = new Map<string, { sql: string; params: unknown[] }>();
  for (const query of collectAggQueries(aggsBody)) {
    const key = JSON.stringify(query);
    if (!translated.has(key)) translated.set(key, await compileDocKeys(db, readers, query, now, runtime));
  }
  return {
    indexIds: readers.map((r) => r.indexId),
    fieldsByPath: fieldsByPath(readers),
    translateQuery: (query) => {
      const found = translated.get(JSON.stringify(query));
      if (!found) throw new Error('aggregation query was not compiled up front');
      return found;
    },
    runtimeFields: runtime?.fields,
    nested: nestedPathsOf(readers),
    maxRuntimeDocs: options.maxRuntimeDocs,
    now,
  };
}

/** Any query → SQL returning the matching `doc_key`s over the searched indices (no scores). */
async function compileDocKeys(
  db: Pool | PoolClient,
  readers: IndexReader[],
  raw: unknown,
  now: number,
  runtime?: SearchRuntimeFields,
): Promise<{ sql: string; params: unknown[] }> {
  const query = parseQuery(raw);
  const params = new SqlParams();
  const parts: string[] = [];
  for (const reader of readers) {
    parts.push(
      `SELECT doc_key FROM (${await compileQuery({ db, reader: everyFieldReader(reader), params, now, runtime }, query, 1, false)}) q${parts.length}`,
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
    const significant = (spec.significant_terms ?? spec.significant_text) as
      Record<string, unknown> | undefined;
    if (significant?.background_filter !== undefined) out.push(significant.background_filter);
    else if (filters && typeof filters === 'object') out.push(...Object.values(filters));
    collectAggQueries(spec.aggs, out);
    collectAggQueries(spec.aggregations, out);
  }
  return out;
}
