import type { Pool, PoolClient } from 'pg';
import type { SearchRequest } from '../query/parse/search-request';
import { resolveSearchIndices } from './search-index-resolver';

/**
 * `indices_boost` resolved as ES's TransportSearchAction.resolveIndexBoosts does: each entry's name,
 * alias or wildcard to its concrete indices (a missing index is index_not_found_exception unless
 * ignore_unavailable), the first entry naming an index giving its boost. The boost multiplies the
 * index's query as a BoostQuery (compile-matched-docs.ts), so it reaches the leaves' float arithmetic.
 */
export async function resolveIndicesBoost(
  db: Pool | PoolClient,
  request: SearchRequest,
  ignoreUnavailable: boolean,
): Promise<SearchRequest> {
  if (!request.indicesBoost || request.indicesBoost.length === 0) return request;
  const byIndexId = new Map<string, number>();
  for (const { index, boost } of request.indicesBoost) {
    for (const row of await resolveSearchIndices(db, index, { ignoreUnavailable, allowNoIndices: true })) {
      if (!byIndexId.has(row.index_id)) byIndexId.set(row.index_id, boost);
    }
  }
  return { ...request, indexBoosts: byIndexId };
}
