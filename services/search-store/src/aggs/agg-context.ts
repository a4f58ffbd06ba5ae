import type { RuntimeFields } from '../script/runtime-fields';
import type { NestedPath } from '../mapping/nested-mapping';

/** One mapped field of one index (a row of `fields`). */
export interface AggField {
  indexId: string;
  indexName: string;
  fieldId: number;
  type: string;
}

/** Anything with pg's query method (Pool, PoolClient, Client). */
export interface Queryable {
  query<R extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[] }>;
}

/**
 * What aggregations need from the search request, the one context they run in. The search engine builds
 * it (search/compile-agg-context.ts) and supplies `translateQuery` (any query → SQL returning `doc_key`
 * for the same indices) for `filter`/`filters`.
 */
export interface AggContext {
  indexIds: string[];
  /** The mapped field at `path` in each searched index that has it (empty when unmapped everywhere). */
  fieldsByPath(path: string): AggField[];
  translateQuery(query: unknown): { sql: string; params: unknown[] };
  runtimeFields?: RuntimeFields;
  /** search.max_buckets (Elasticsearch default 65,536). */
  maxBuckets?: number;
  /** Most matched documents a runtime field is evaluated over in Node (default 1,000,000). */
  maxRuntimeDocs?: number;
  /** Script time budget for the whole request, epoch ms (default now + 5 s). */
  scriptDeadline?: number;
  /** "now" for date math in date_range (default Date.now()). */
  now?: number;
  /**
   * false: aggregations read the row-wise doc values in SQL only, never the column-wise ones
   * (columnar-aggs.ts); the tests compare the two.
   */
  columnar?: boolean;
  /** The searched indices' nested paths (nested-agg.ts), and what a path is mapped as in any of them. */
  nested?: { paths: NestedPath[]; kindOf(path: string): 'nested' | 'object' | undefined };
}

/** SQL with its own `$1…$n` returning `doc_key`. */
export interface DocKeySet {
  sql: string;
  params: unknown[];
}

/**
 * The matched documents: SQL with its own `$1…$n` returning `doc_key` (and `score` when `scored`).
 */
export interface MatchedSet extends DocKeySet {
  scored?: boolean;
  /** Every document of the searched indices matches (match_all): doc values need no join to the matches. */
  all?: boolean;
}

export const DEFAULT_MAX_BUCKETS = 65_536;
