import type { IncludeExclude } from './include-exclude';
import type { PipelineSpec } from './pipeline/pipeline-types';
import type { GeoBoundsSpec, GeoCentroidSpec, GeoDistanceAggSpec, GeohashGridSpec } from './parse-geo-aggs';
import type { SignificanceHeuristic } from './significance-heuristics';

/** The parsed aggregation tree (the `aggs` / `aggregations` object of a search body). */

export const METRIC_TYPES = ['avg', 'sum', 'min', 'max', 'stats', 'value_count', 'cardinality'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

export interface FieldSpec {
  field: string;
  missing?: unknown;
  /** cardinality's precision_threshold. */
  precisionThreshold?: number;
}

export type AggNode =
  | { type: MetricType; name: string; meta?: unknown; spec: FieldSpec; subs: AggNode[] }
  | { type: 'terms'; name: string; meta?: unknown; spec: TermsSpec; subs: AggNode[] }
  | { type: 'filter'; name: string; meta?: unknown; query: unknown; subs: AggNode[] }
  | {
      type: 'filters';
      name: string;
      meta?: unknown;
      filters: Array<[string, unknown]>;
      keyed: boolean;
      otherBucketKey?: string;
      subs: AggNode[];
    }
  | { type: 'range' | 'date_range'; name: string; meta?: unknown; spec: RangeSpec; subs: AggNode[] }
  | {
      type: 'histogram' | 'date_histogram';
      name: string;
      meta?: unknown;
      spec: HistogramSpec;
      subs: AggNode[];
    }
  | { type: 'top_hits'; name: string; meta?: unknown; spec: TopHitsSpec; subs: AggNode[] }
  | { type: 'pipeline'; name: string; meta?: unknown; spec: PipelineSpec; subs: AggNode[] }
  | { type: 'composite'; name: string; meta?: unknown; spec: CompositeSpec; subs: AggNode[] }
  | { type: 'percentiles'; name: string; meta?: unknown; spec: PercentilesSpec; subs: AggNode[] }
  | { type: 'geo_bounds'; name: string; meta?: unknown; spec: GeoBoundsSpec; subs: AggNode[] }
  | { type: 'geo_centroid'; name: string; meta?: unknown; spec: GeoCentroidSpec; subs: AggNode[] }
  | { type: 'geohash_grid'; name: string; meta?: unknown; spec: GeohashGridSpec; subs: AggNode[] }
  | { type: 'geo_distance'; name: string; meta?: unknown; spec: GeoDistanceAggSpec; subs: AggNode[] }
  | { type: 'rare_terms'; name: string; meta?: unknown; spec: RareTermsSpec; subs: AggNode[] }
  | {
      type: 'significant_terms' | 'significant_text';
      name: string;
      meta?: unknown;
      spec: SignificantTermsSpec;
      subs: AggNode[];
    }
  /** `scope`: the nested path the aggregation runs in ('' = documents; unset at the top). */
  | { type: 'nested'; name: string; meta?: unknown; path: string; scope?: string; subs: AggNode[] }
  | { type: 'reverse_nested'; name: string; meta?: unknown; path?: string; scope?: string; subs: AggNode[] };

export type TermsOrder = Array<{ key: string; asc: boolean }>;

export interface TermsSpec extends FieldSpec {
  size: number;
  minDocCount: number;
  order: TermsOrder;
}

export interface RangeSpec extends FieldSpec {
  ranges: Array<{ key?: string; from?: number | string; to?: number | string }>;
  keyed: boolean;
  format?: string;
  timeZone?: string;
}

export interface HistogramSpec extends FieldSpec {
  /** Fixed width: a number (histogram) or milliseconds (fixed_interval). */
  interval?: number;
  /** Calendar unit for date_histogram calendar_interval. */
  calendar?: 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';
  offset: number;
  minDocCount: number;
  extendedBounds?: { min?: number | string; max?: number | string };
  hardBounds?: { min?: number | string; max?: number | string };
  keyed: boolean;
  format?: string;
  timeZone?: string;
  order: TermsOrder;
}

export interface TopHitsSpec {
  size: number;
  from: number;
  sort: Array<{ field: string; asc: boolean }>;
  source: boolean | { includes: string[]; excludes: string[] };
}

/** One `sources` entry of a composite aggregation. */
export interface CompositeSource {
  name: string;
  kind: 'terms' | 'histogram' | 'date_histogram';
  field: string;
  missingBucket: boolean;
  asc: boolean;
  histogram?: HistogramSpec;
}

export interface CompositeSpec {
  sources: CompositeSource[];
  size: number;
  /** Source name → value (a Map: the names are the client's). */
  after?: Map<string, unknown>;
}

export interface PercentilesSpec extends FieldSpec {
  /** 0..100, sorted, distinct. */
  percents: number[];
  keyed: boolean;
  /** tdigest.compression: validated; the quantiles are exact here (percentiles-agg.ts). */
  compression: number;
}

/** rare_terms (parse-rare-terms.ts). */
export interface RareTermsSpec extends FieldSpec {
  maxDocCount: number;
  precision: number;
  includeExclude: IncludeExclude;
}

/** significant_terms (parse-significant-terms.ts). */
export interface SignificantTermsSpec extends FieldSpec {
  size: number;
  shardSize?: number;
  minDocCount: number;
  shardMinDocCount: number;
  heuristic: SignificanceHeuristic;
  backgroundFilter?: unknown;
  includeExclude: IncludeExclude;
}
