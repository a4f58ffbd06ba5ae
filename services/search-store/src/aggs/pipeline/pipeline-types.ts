/** Pipeline aggregations (ES reference "Pipeline aggregations"): they read other aggregations' output. */

/** Sibling pipelines: one result beside the multi-bucket aggregation their buckets_path starts with. */
export const SIBLING_PIPELINES = [
  'avg_bucket',
  'max_bucket',
  'min_bucket',
  'sum_bucket',
  'stats_bucket',
  'extended_stats_bucket',
] as const;

/** Parent pipelines: declared inside a multi-bucket aggregation, they add to or change its buckets. */
export const PARENT_PIPELINES = [
  'cumulative_sum',
  'derivative',
  'bucket_script',
  'bucket_selector',
  'bucket_sort',
] as const;

export type SiblingPipelineType = (typeof SIBLING_PIPELINES)[number];
export type ParentPipelineType = (typeof PARENT_PIPELINES)[number];
export type PipelineType = SiblingPipelineType | ParentPipelineType;

export const PIPELINE_TYPES = new Set<string>([...SIBLING_PIPELINES, ...PARENT_PIPELINES]);

export function isSiblingPipeline(type: string): type is SiblingPipelineType {
  return (SIBLING_PIPELINES as readonly string[]).includes(type);
}

/** ES BucketHelpers.GapPolicy. */
export type GapPolicy = 'skip' | 'insert_zeros' | 'keep_values';

export interface PipelineSpec {
  kind: PipelineType;
  /** Variable name → path; sibling and single-path parents use the name `_value`. */
  paths: Map<string, string>;
  gapPolicy: GapPolicy;
  format?: string;
  /** extended_stats_bucket sigma (default 2). */
  sigma: number;
  /** derivative `unit` in milliseconds. */
  unitMs?: number;
  script?: { source: string; params: unknown };
  sort: Array<{ path: string; asc: boolean }>;
  from: number;
  size?: number;
}
