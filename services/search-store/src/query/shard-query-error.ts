import { EsError, type EsCause } from '@acme/common';

/**
 * An error Elasticsearch raises inside the query phase on a shard: the response is a 400
 * `search_phase_execution_exception` "all shards failed" whose root cause is this one (API-NOTES §A1.2).
 */
export class ShardQueryError extends Error {
  constructor(readonly shardCause: EsCause) {
    super(shardCause.reason ?? shardCause.type);
    this.name = 'ShardQueryError';
  }
}

export function toSearchPhaseError(error: ShardQueryError, indexNames: string[]): EsError {
  const cause = error.shardCause;
  return new EsError('search_phase_execution_exception', 'all shards failed', {
    metadata: {
      phase: 'query',
      grouped: true,
      failed_shards: indexNames
        .slice(0, 1)
        .map((index) => ({ shard: 0, index, node: 'search-store', reason: cause })),
    },
    rootCause: [cause],
    causedBy: cause,
  });
}
