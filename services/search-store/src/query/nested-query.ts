/** ES ScoreMode of a nested query: how the scores of an object's matching children make its score. */
export type NestedScoreMode = 'avg' | 'sum' | 'max' | 'min' | 'none';

/** The `inner_hits` of a nested query, as given (search/hits/nested-inner-hits.ts reads it). */
export interface NestedInnerHits {
  /** The key in the hit's `inner_hits`: `name`, else the path. */
  name: string;
  from: number;
  size: number;
  spec: Record<string, unknown>;
}

/** ES NestedQueryBuilder: `query` over the objects at `path`, matching the documents that hold them. */
export interface NestedQuery<Query> {
  kind: 'nested';
  path: string;
  query: Query;
  scoreMode: NestedScoreMode;
  ignoreUnmapped: boolean;
  innerHits?: NestedInnerHits;
  boost: number;
}
