import type { Pool, PoolClient } from 'pg';
import type { IndexReader } from './index-reader';

/**
 * Seams for what helper "script-aggs" builds: the search engine hands over the matched documents as
 * SQL and gets JSON back. Until the lead wires real implementations, a request that needs them is a 400.
 */
export interface MatchedDocsSql {
  /** SQL yielding one row per matched document: `(index_id bigint, doc_key bigint, s float4)`. */
  text: string;
  values: unknown[];
  /**
   * True when the SQL yields every document of the searched indices (match_all, no alias filter, no
   * min_score): aggregations may then read doc values directly instead of joining them to the matches.
   */
  allDocs?: boolean;
}

export interface AggregationContext {
  readers: IndexReader[];
  /** The request's `now` (epoch ms), shared with date math in queries. */
  now: number;
  runtimeFields?: RuntimeFields;
  /** The request's `runtime_mappings`, for engines that compile runtime fields themselves. */
  runtimeMappings?: Record<string, unknown>;
}

export interface AggregationRunner {
  runAggregations(
    client: Pool | PoolClient,
    ctx: AggregationContext,
    matchedDocsSql: MatchedDocsSql,
    aggsBody: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
}

/** Runtime fields of one request, compiled from `runtime_mappings` (and the mapping's `runtime` section). */
export interface RuntimeFields {
  /** Field names this request defines, with their types (keyword, long, double, date, boolean). */
  types: Map<string, string>;
  /** Values per document, computed from `_source`/doc values; used for `fields`, sort and queries. */
  valuesFor(indexId: string, source: Record<string, unknown>): Promise<Record<string, unknown[]>>;
  /**
   * A runtime field's values over one index's documents as SQL yielding `(doc_key bigint, v)` (`v` text
   * for keyword, float8 otherwise: dates as epoch ms, booleans 1/0) with its own `$1…$n`; for queries
   * and sort. Over every document of the index, or only over `matched` (SQL yielding doc_key with its
   * own `$1…$n`: a sort needs only the documents the query matched). Refused beyond the per-request
   * evaluation limit.
   */
  relation?(
    client: Pool | PoolClient,
    reader: IndexReader,
    name: string,
    matched?: DocKeySet,
  ): Promise<RuntimeRelation>;
}

/** SQL yielding `doc_key` with its own parameters. */
export interface DocKeySet {
  sql: string;
  params: unknown[];
}

export interface RuntimeRelation {
  type: string;
  text: string;
  values: unknown[];
}

export interface RuntimeFieldCompiler {
  compile(runtimeMappings: Record<string, unknown>, readers: IndexReader[]): RuntimeFields;
}

export interface SearchSeams {
  aggregations?: AggregationRunner;
  runtimeFields?: RuntimeFieldCompiler;
  /** `false` sends every search through the SQL plans (differential tests of the fast path). */
  fastMatch?: boolean;
}
