import { type Router, type Request, type Response } from 'express';
import type { Pool, PoolClient } from 'pg';
import { executeCount, executeSearch } from '../search/execute-search';
import { fastCount, fastSearch } from '../search/fast-search';
import type { PostingsCache } from '../search/fast-match/postings-cache';
import { openIndexReaders, type IndexReader, type IndexRow } from '../query/index-reader';
import { parseSearchRequest } from '../query/parse/search-request';
import type { SearchOptions } from '../search/search-options';
import { ShardQueryError, toSearchPhaseError } from '../query/shard-query-error';
import { queryParams, searchBodyOf } from './search-body';
import { resolveSearchIndices } from '../search/search-index-resolver';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';
import type { RouteAccess } from '../auth/route-scope';
import { clientGoneSignal, dropConnectionOnAbort, taskCancelled } from './client-gone';

export interface SearchRouteDeps {
  pool: Pool;
  /** For the fast path's named statements (storage/fast-search-pool.ts); `pool` when absent. */
  fastPool?: Pool;
  /** How searches run (the SQL plans only, a runtime-field limit); the defaults when absent. */
  options?: SearchOptions;
  /** The fast path's postings cache; absent → every search reads its postings. */
  postingsCache?: PostingsCache;
}

/**
 * Runs a read in one REPEATABLE READ snapshot: the statistics a score uses (field and term stats)
 * and the postings it reads come from the same moment even while bulks commit, as on a Lucene
 * point-in-time reader. Shard-level errors become ES's search_phase_execution_exception. When `gone`
 * fires (the client left), the connection is dropped and its statements stop (issue 17).
 */
async function inSnapshot<T>(
  pool: Pool,
  target: SearchTarget,
  work: (client: PoolClient, readers: IndexReader[]) => Promise<T>,
  resolved: IndexRow[] | undefined,
  gone: AbortSignal | undefined,
): Promise<T> {
  const client = await pool.connect();
  const guard = dropConnectionOnAbort(client, gone);
  let readers: IndexReader[] = [];
  try {
    if (guard.dropped) throw taskCancelled();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const indices =
      resolved ??
      (await resolveSearchIndices(client, target.index, { ignoreUnavailable: target.ignoreUnavailable }));
    readers = await openIndexReaders(client, indices);
    const result = await work(client, readers);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (guard.dropped) throw taskCancelled();
    await client.query('ROLLBACK').catch(() => undefined);
    if (error instanceof ShardQueryError) {
      throw toSearchPhaseError(
        error,
        readers.map((r) => r.name),
      );
    }
    throw error;
  } finally {
    guard.done();
    if (!guard.dropped) client.release();
  }
}

/** Runs a search; `gone` fires when its client left (api/client-gone.ts). */
export type SearchRunner = (
  target: SearchTarget,
  body: unknown,
  params: Record<string, string | undefined>,
  gone?: AbortSignal,
) => Promise<unknown>;

/** What a search reads: the index expression of the path (undefined: all) and ignore_unavailable. */
export interface SearchTarget {
  index: string | undefined;
  ignoreUnavailable: boolean;
}

/**
 * The search API behind its HTTP details, shared by the express route and the lean path in front of
 * it (lean-search.ts): the fast path when it covers the request, else the SQL plans in one snapshot.
 */
export function createSearchRunner(deps: SearchRouteDeps): SearchRunner {
  return async (target, body, params, gone) => {
    const started = Date.now();
    const request = parseSearchRequest(body, params);
    const fast =
      deps.options?.fastMatch === false
        ? {}
        : await fastSearch(
            deps.fastPool ?? deps.pool,
            target.index,
            { ignoreUnavailable: target.ignoreUnavailable },
            request,
            started,
            deps.postingsCache,
          );
    if (fast.body) return fast.body;
    return inSnapshot(
      deps.pool,
      target,
      (client, readers) => executeSearch(client, readers, request, deps.options, started),
      fast.indices,
      gone,
    );
  };
}

const targetOf = (req: Request): SearchTarget => ({
  index: req.params.index as string | undefined,
  ignoreUnavailable: queryParams(req).ignore_unavailable === 'true',
});

/** What search and count need; the lean path in front of express (lean-search.ts) checks the same. */
export const SEARCH_ACCESS: RouteAccess = { scope: 'search.read', action: 'indices:data/read/search' };

/** GET|POST /_search, /<index>/_search, /_count, /<index>/_count (ES search and count APIs). */
export function searchRouter(deps: SearchRouteDeps): Router {
  const { router, route } = scopedRouter();

  const runSearch = createSearchRunner(deps);
  const search = async (req: Request, res: Response): Promise<void> => {
    const gone = clientGoneSignal(res);
    res.json(await runSearch(targetOf(req), searchBodyOf(req, res), queryParams(req), gone));
  };

  const count = async (req: Request, res: Response): Promise<void> => {
    const gone = clientGoneSignal(res);
    const request = parseSearchRequest(searchBodyOf(req, res), queryParams(req), true);
    const target = targetOf(req);
    const fast =
      deps.options?.fastMatch === false
        ? {}
        : await fastCount(
            deps.fastPool ?? deps.pool,
            target.index,
            { ignoreUnavailable: target.ignoreUnavailable },
            request,
          );
    if (fast.body) {
      res.json(fast.body);
      return;
    }
    const body = await inSnapshot(
      deps.pool,
      target,
      async (client, readers) => ({
        count: await executeCount(client, readers, request, deps.options),
        _shards: { total: readers.length, successful: readers.length, skipped: 0, failed: 0 },
      }),
      fast.indices,
      gone,
    );
    res.json(body);
  };

  const searchParams = checkParams(ROUTE_PARAMS.search);
  const countParams = checkParams(ROUTE_PARAMS.count);
  route(['GET', 'POST'], '/_search', SEARCH_ACCESS.scope, SEARCH_ACCESS.action, searchParams, search);
  route(['GET', 'POST'], '/:index/_search', SEARCH_ACCESS.scope, SEARCH_ACCESS.action, searchParams, search);
  route(['GET', 'POST'], '/_count', SEARCH_ACCESS.scope, SEARCH_ACCESS.action, countParams, count);
  route(['GET', 'POST'], '/:index/_count', SEARCH_ACCESS.scope, SEARCH_ACCESS.action, countParams, count);
  return router;
}
