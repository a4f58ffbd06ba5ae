import type { Pool } from 'pg';
import { parseSearchRequest } from '../query/parse/search-request';
import { executeCount, executeSearch } from './execute-search';
import { fastCount, fastSearch } from './fast-search';
import type { PostingsCache } from './fast-match/postings-cache';
import { inSnapshot } from './in-snapshot';
import { resolveTermsLookups } from './terms-lookup';
import { resolveIndicesBoost } from './indices-boost';
import type { SearchOptions } from './search-options';
import type { SearchTarget } from './search-target';
import type { SearchContexts } from './contexts/search-contexts';
import { needsContext, searchInContext } from './contexts/search-in-context';
import { onReadPools } from './on-read-pools';
import type { ReplicaSet } from '../storage/replica-set';
import { sliceWithoutContext } from './contexts/context-errors';
import { defaultSearchTimeout } from './default-search-timeout';

export interface SearcherDeps {
  pool: Pool;
  /** For the fast path's named statements (storage/fast-search-pool.ts); `pool` when absent. */
  fastPool?: Pool;
  /** How searches run (the SQL plans only, a runtime-field limit); the defaults when absent. */
  options?: SearchOptions;
  /** The fast path's postings cache; absent → every search reads its postings. */
  postingsCache?: PostingsCache;
  /** Scroll and point-in-time contexts (search/contexts/); without them such searches are refused. */
  contexts?: SearchContexts;
  /** Read replicas that may serve searches and counts (never scroll or PIT: their snapshots are the primary's). */
  replicas?: ReplicaSet;
}

/**
 * Runs a search or a count; `gone` fires when its client left (api/client-gone.ts); `user` owns the
 * scroll or PIT context the search opens or reads (auth/context-user.ts).
 */
export type SearchRunner = (
  target: SearchTarget,
  body: unknown,
  params: Record<string, string | undefined>,
  gone?: AbortSignal,
  user?: string,
) => Promise<unknown>;

/**
 * The search API behind its HTTP details, shared by the express route and the front route before
 * it (api/lean-search.ts), as Lucene's IndexSearcher is to a request handler: the fast path when it
 * covers the request, else the SQL plans in one snapshot; on a read replica when one may serve it.
 */
export function createSearchRunner(deps: SearcherDeps): SearchRunner {
  const onPrimary = searchRunnerOn(deps);
  return (target, body, params, gone, user) =>
    needsContext(body, params)
      ? onPrimary(target, body, params, gone, user)
      : onReadPools(deps, (pools) => searchRunnerOn({ ...deps, ...pools })(target, body, params, gone, user));
}

/** The `_count` API: the fast path's count when it covers the query, else the SQL plan's. */
export function createCountRunner(deps: SearcherDeps): SearchRunner {
  return (target, body, params, gone, user) =>
    onReadPools(deps, (pools) => countRunnerOn({ ...deps, ...pools })(target, body, params, gone, user));
}

function searchRunnerOn(deps: SearcherDeps): SearchRunner {
  return async (target, body, params, gone, user) => {
    if (needsContext(body, params)) {
      return searchInContext(deps.contexts, target, body, params, deps.options, gone, user);
    }
    const started = Date.now();
    const request = await resolveIndicesBoost(
      deps.pool,
      await resolveTermsLookups(deps.pool, parseSearchRequest(body, params)),
      target.ignoreUnavailable,
    );
    if (request.slice) throw sliceWithoutContext();
    request.timeoutMs ??= await defaultSearchTimeout(deps.pool);
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

function countRunnerOn(deps: SearcherDeps): SearchRunner {
  return async (target, body, params, gone) => {
    const request = await resolveTermsLookups(deps.pool, parseSearchRequest(body, params, true));
    const fast =
      deps.options?.fastMatch === false
        ? {}
        : await fastCount(
            deps.fastPool ?? deps.pool,
            target.index,
            { ignoreUnavailable: target.ignoreUnavailable },
            request,
          );
    if (fast.body) return fast.body;
    return inSnapshot(
      deps.pool,
      target,
      async (client, readers) => ({
        count: await executeCount(client, readers, request, deps.options),
        _shards: { total: readers.length, successful: readers.length, skipped: 0, failed: 0 },
      }),
      fast.indices,
      gone,
    );
  };
}
