import type { Pool } from 'pg';
import type { SearchResponse } from './execute-search';
import type { CatalogFold } from './fast-match/check-cached-plan';
import { executeFastCount, executeFastSearch } from './fast-match/execute-fast-search';
import { openMappingReaders } from './fast-match/open-mapping-readers';
import { isFastMatchRequest } from './fast-match/plan-fast-match';
import type { PostingsCache } from './fast-match/postings-cache';
import type { IndexReader, IndexRow } from '../query/index-reader';
import type { SearchRequest } from '../query/parse/search-request';
import { ShardQueryError, toSearchPhaseError } from '../query/shard-query-error';
import {
  catalogFromText,
  catalogStatement,
  loadSearchCatalog,
  type SearchCatalog,
} from './load-search-catalog';
import { resolveFromCatalog } from './search-index-resolver';

/**
 * The fast path (search/fast-match) for `_search` and `_count`: no transaction, since each of its statements reads
 * one snapshot of what it scores with. `body` is undefined when the request needs the SQL path; the
 * indices resolved are handed on so the catalog is read once.
 *
 * Every search reads the catalog, and the postings statement needs the mapping (analyzers) the catalog
 * holds. So the search runs with the readers derived from the last catalog seen for this expression
 * while the catalog loads, and its answer is kept only when the catalog comes back with the same key
 * (same indices, mappings, settings and aliases); otherwise it runs again with the fresh readers, and
 * never answers from a stale catalog. The catalog is read inside one of the search's own statements
 * (CatalogFold): the cache check when the search is answered from the postings cache (one round trip
 * and one statement in all), else the page statement after the postings (two in sequence and none
 * beside them, on one connection: a statement costs node-postgres and a backend more CPU than the
 * catalog's ~0.06 ms of execution, and the machine's cores are shared with Postgres).
 * Without a guess (the expression's first search, fuzzy expansions) it loads beside the search.
 */
interface Derived {
  key: string;
  indices: IndexRow[];
  readers: IndexReader[];
}

const derived = new Map<string, Derived>();
const MAX_DERIVED = 256;

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Search-phase errors as ES reports them, naming the searched indices. */
async function asSearchPhase<T>(readers: IndexReader[], work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ShardQueryError) {
      throw toSearchPhaseError(
        error,
        readers.map((r) => r.name),
      );
    }
    throw error;
  }
}

async function withFastReaders<T>(
  pool: Pool,
  expression: string | undefined,
  options: { ignoreUnavailable: boolean },
  work: (readers: IndexReader[], fold?: CatalogFold) => Promise<T | undefined>,
): Promise<{ value?: T; indices: IndexRow[] }> {
  const cacheKey = `${options.ignoreUnavailable}\u0000${expression ?? '_all'}`;
  const guess = derived.get(cacheKey);
  const fold: CatalogFold | undefined = guess
    ? { statement: (first) => catalogStatement(expression ?? '_all', first) }
    : undefined;
  const speculative = guess ? settle(asSearchPhase(guess.readers, work(guess.readers, fold))) : undefined;
  // Read synchronously after the call: set when the search reads the catalog in its own statement.
  const loading = fold?.taken ? undefined : loadSearchCatalog(pool, expression ?? '_all');
  let catalog: SearchCatalog;
  if (loading) {
    catalog = await loading;
  } else {
    await speculative;
    catalog = fold?.found ? catalogFromText(fold.found) : await loadSearchCatalog(pool, expression ?? '_all');
  }
  if (guess && speculative && guess.key === catalog.key) {
    const outcome = await speculative;
    if (!outcome.ok) throw outcome.error;
    return { value: outcome.value, indices: guess.indices };
  }
  const indices = resolveFromCatalog(catalog, expression, options);
  const readers = openMappingReaders(indices);
  if (derived.size >= MAX_DERIVED && !derived.has(cacheKey)) derived.delete(derived.keys().next().value!);
  derived.set(cacheKey, { key: catalog.key, indices, readers });
  return { value: await asSearchPhase(readers, work(readers)), indices };
}

export async function fastSearch(
  pool: Pool,
  expression: string | undefined,
  options: { ignoreUnavailable: boolean },
  request: SearchRequest,
  started: number,
  cache?: PostingsCache,
): Promise<{ body?: SearchResponse; indices?: IndexRow[] }> {
  if (!isFastMatchRequest(request)) return {};
  const { value, indices } = await withFastReaders(pool, expression, options, (readers, fold) =>
    executeFastSearch(pool, readers, request, started, cache, fold),
  );
  return { body: value, indices };
}

/** `_count` the same way: the body ES answers, or undefined for the SQL path. */
export async function fastCount(
  pool: Pool,
  expression: string | undefined,
  options: { ignoreUnavailable: boolean },
  request: SearchRequest,
): Promise<{ body?: CountResponse; indices?: IndexRow[] }> {
  if (!isFastMatchRequest(request)) return {};
  const { value, indices } = await withFastReaders(pool, expression, options, async (readers) => {
    const count = await executeFastCount(pool, readers, request);
    return count === undefined
      ? undefined
      : {
          count,
          _shards: {
            total: readers.length,
            successful: readers.length,
            skipped: 0 as const,
            failed: 0 as const,
          },
        };
  });
  return { body: value, indices };
}

export interface CountResponse {
  count: number;
  _shards: { total: number; successful: number; skipped: 0; failed: 0 };
}
