import type { Client } from 'es8';
import type { Pool } from 'pg';
import { resolveSearchIndices } from '../../src/search/search-index-resolver';
import { executeCount, executeSearch, type SearchResponse } from '../../src/search/execute-search';
import { executeFastCount, executeFastSearch } from '../../src/search/fast-match/execute-fast-search';
import { openMappingReaders } from '../../src/search/fast-match/open-mapping-readers';
import type { PostingsCache } from '../../src/search/fast-match/postings-cache';
import { openIndexReaders } from '../../src/query/index-reader';
import { parseSearchRequest } from '../../src/query/parse/search-request';

/**
 * The two sides of the fast path's differential tests: the SQL plans (the oracle, read in one
 * REPEATABLE READ snapshot) and the fast path (search/fast-match), both called in process on the
 * same pool. `pool` is a getter because the tests start their store in beforeAll.
 */
export function fastMatchOracle(pool: () => Pool) {
  return {
    async viaSql(indices: string, body: Record<string, unknown>): Promise<SearchResponse> {
      const request = parseSearchRequest(body, {});
      const client = await pool().connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const readers = await openIndexReaders(client, await resolveSearchIndices(client, indices));
        const response = await executeSearch(client, readers, request, {}, 0);
        await client.query('COMMIT');
        return response;
      } finally {
        client.release();
      }
    },
    async viaFastPath(
      indices: string,
      body: Record<string, unknown>,
      cache?: PostingsCache,
    ): Promise<SearchResponse | undefined> {
      const readers = openMappingReaders(await resolveSearchIndices(pool(), indices));
      return executeFastSearch(pool(), readers, parseSearchRequest(body, {}), 0, cache);
    },
    async countViaSql(indices: string, query: unknown): Promise<number> {
      const request = parseSearchRequest({ query }, {}, true);
      const client = await pool().connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const readers = await openIndexReaders(client, await resolveSearchIndices(client, indices));
        const count = await executeCount(client, readers, request, {});
        await client.query('COMMIT');
        return count;
      } finally {
        client.release();
      }
    },
    async countViaFastPath(indices: string, query: unknown): Promise<number | undefined> {
      const request = parseSearchRequest({ query }, {}, true);
      const readers = openMappingReaders(await resolveSearchIndices(pool(), indices));
      return executeFastCount(pool(), readers, request);
    },
  };
}

/** A response without `took`, as JSON: equal output means equal hits, scores (float32) and totals. */
export const comparable = (response: SearchResponse): unknown =>
  JSON.parse(JSON.stringify({ ...response, took: 0 })) as unknown;

/**
 * Indexes documents 0..count-1 (`_id` = String(i), source `source(i)`) by _bulk with refresh, `batch`
 * a request, so a fixture gets several segments; throws if any item failed.
 */
export async function bulkIndex(
  es: Client,
  index: string,
  count: number,
  source: (i: number) => Record<string, unknown>,
  batch = 6000,
): Promise<void> {
  for (let from = 0; from < count; from += batch) {
    const bulk = await es.bulk({
      refresh: true,
      operations: Array.from({ length: Math.min(batch, count - from) }, (_, k) => [
        { index: { _index: index, _id: String(from + k) } },
        source(from + k),
      ]).flat(),
    });
    if (bulk.errors) throw new Error(`fixture bulk into ${index} failed`);
  }
}
