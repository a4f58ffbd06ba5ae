import { EsError } from '@acme/common';
import type { IndexReader } from '../query/index-reader';
import type { SearchRequest } from '../query/parse/search-request';
import type { SearchResponse } from './search-response';

/**
 * The answer of a search whose `timeout` ran out in the query phase. ES answers what its shards
 * collected before the deadline with `timed_out: true`; our query phase is one statement, cancelled
 * as a whole, so nothing was collected: no hits, a total of 0. With
 * `allow_partial_search_results=false` ES fails the search instead (SearchTimeoutException, 429).
 */
export function searchTimedOut(
  readers: IndexReader[],
  request: SearchRequest,
  started: number,
): SearchResponse {
  if (request.allowPartialSearchResults === false) {
    const cause = { type: 'search_timeout_exception', reason: 'Time exceeded' };
    throw new EsError('search_phase_execution_exception', 'all shards failed', {
      metadata: {
        phase: 'query',
        grouped: true,
        failed_shards: readers
          .slice(0, 1)
          .map((reader) => ({ shard: 0, index: reader.name, node: 'search-store', reason: cause })),
      },
      rootCause: [cause],
      causedBy: cause,
      status: 429,
    });
  }
  const total = request.restTotalHitsAsInt ? 0 : { value: 0, relation: 'eq' as const };
  return {
    took: Date.now() - started,
    timed_out: true,
    _shards: { total: readers.length, successful: readers.length, skipped: 0, failed: 0 },
    hits: { ...(request.trackTotalHits === false ? {} : { total }), max_score: null, hits: [] },
  };
}
