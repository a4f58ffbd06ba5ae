/** The `_search` response body (API-NOTES §A1.3). */
export interface SearchResponse {
  took: number;
  timed_out: boolean;
  /** Present when the request set terminate_after (ES SearchResponse). */
  terminated_early?: boolean;
  _shards: { total: number; successful: number; skipped: 0; failed: 0 };
  hits: {
    total?: { value: number; relation: 'eq' | 'gte' } | number;
    max_score: number | null;
    hits: Record<string, unknown>[];
  };
  aggregations?: Record<string, unknown>;
  profile?: unknown;
  suggest?: Record<string, unknown[]>;
}
