import { newDictionary } from '@acme/common';
import type { Pool, PoolClient } from 'pg';
import { runAggregations } from '../aggs/run-aggregations';
import { compileAggContext } from './compile-agg-context';
import { compileMatchedDocs } from '../query/compile/compile-matched-docs';
import { buildHits, type HitRow } from './hits/build-hits';
import { addMatchedQueries } from './hits/matched-queries';
import { compileRescore } from './rescore-docs';
import { collapsedSource } from './collapse-groups';
import { expandCollapsedHits } from './hits/collapse-inner-hits';
import type { IndexReader } from '../query/index-reader';
import { planSort, searchAfterCondition, sortValue } from '../query/compile/plan-sort';
import { planGeoSort } from '../query/compile/plan-geo-sort';
import type { Query } from '../query/query-ast';
import { formatFloat } from '../query/score/bm25';
import type { SearchRequest } from '../query/parse/search-request';
import { compileSearchRuntimeFields } from '../query/compile/search-runtime-fields';
import type { SearchOptions } from './search-options';
import { ShardQueryError } from '../query/shard-query-error';
import { SqlParams } from '../query/compile/sql-params';
import { planRuntimeSort } from '../query/compile/plan-runtime-sort';
import { sliceMatched } from './slice-filter';
import { collectedDocs, terminatedEarlySql } from './terminate-after';
import { withinBudget } from './search-budget';
import { SearchProfiler } from './search-profile';
import { searchTimedOut } from './search-timed-out';
import { runSuggest } from './suggest/run-suggest';
import { compileNestedSortFilters } from '../query/compile/compile-nested-sort';
import type { SearchResponse } from './search-response';

export type { SearchResponse } from './search-response';

const DEFAULT_MAX_RESULT_WINDOW = 10000;

/** The request's runtime_mappings over the searched indices' mapped `runtime` sections (the request wins). */
function runtimeMappingsOf(
  readers: IndexReader[],
  requested: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  // Keyed by runtime field name; Object.assign into a null-prototype object keeps `__proto__` a key.
  const merged = newDictionary<unknown>();
  for (const reader of readers) Object.assign(merged, reader.mappings.runtime ?? {});
  Object.assign(merged, requested ?? {});
  return Object.keys(merged).length === 0 ? undefined : merged;
}

function maxResultWindow(readers: IndexReader[]): number {
  const values = readers.map((r) =>
    Number(r.settings['index.max_result_window'] ?? DEFAULT_MAX_RESULT_WINDOW),
  );
  return values.length === 0 ? DEFAULT_MAX_RESULT_WINDOW : Math.min(...values);
}

/** ES's `index.max_result_window` check: from + size beyond it is a shard failure. */
export function checkResultWindow(
  readers: IndexReader[],
  request: Pick<SearchRequest, 'from' | 'size'>,
): void {
  const window = maxResultWindow(readers);
  if (request.from + request.size > window) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `Result window is too large, from + size must be less than or equal to: [${window}] but was [${request.from + request.size}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`,
    });
  }
}

/** The response around the hits: max_score, and hits.total as track_total_hits asks (value capped, relation gte). */
export function searchResponse(
  readers: IndexReader[],
  request: SearchRequest,
  page: {
    total: number;
    maxScore: number | null | undefined;
    hits: Record<string, unknown>[];
    scored: boolean;
    started: number;
  },
): SearchResponse {
  const { total, maxScore, hits, scored } = page;
  const response: SearchResponse = {
    took: Date.now() - page.started,
    timed_out: false,
    _shards: { total: readers.length, successful: readers.length, skipped: 0, failed: 0 },
    hits: {
      max_score:
        scored && request.size > 0 && maxScore !== null && maxScore !== undefined
          ? formatFloat(maxScore)
          : null,
      hits,
    },
  };
  if (request.trackTotalHits !== false) {
    const limit = request.trackTotalHits === true ? Infinity : request.trackTotalHits;
    const value = Math.min(total, limit);
    response.hits = {
      total: request.restTotalHitsAsInt ? value : { value, relation: total > limit ? 'gte' : 'eq' },
      ...response.hits,
    };
  } else if (request.restTotalHitsAsInt) {
    // SearchHits.toXContent: an untracked total prints as -1 when totals are integers.
    response.hits = { total: -1, ...response.hits };
  }
  return response;
}

/**
 * `size: 0` (aggregations, counts): no page, and max_score prints null, so only hits.total is needed,
 * and only up to what track_total_hits reports: counting stops at limit + 1 (relation gte past it),
 * as Lucene's TotalHitCountCollector stops at the threshold. The matches are not materialised (a
 * CTE of every match went to temp files at 100k documents: ~30 ms of a 150 ms aggregation).
 */
function countOnly(matched: string, request: SearchRequest, params: SqlParams): string {
  const limit =
    request.trackTotalHits === true
      ? undefined
      : request.trackTotalHits === false
        ? 0
        : request.trackTotalHits;
  const capped = limit === undefined ? '' : ` LIMIT ${params.add(limit + 1)}`;
  return `SELECT count(*)::bigint AS total, NULL::float4 AS max_score, NULL::bigint AS doc_key
    FROM (SELECT 1 FROM (${matched}) q${capped}) c`;
}

export async function executeSearch(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  options: SearchOptions = {},
  started = Date.now(),
): Promise<SearchResponse> {
  checkResultWindow(readers, request);
  const now = started;
  const params = new SqlParams();
  const hitsQuery: Query = request.postFilter
    ? { kind: 'bool', must: [request.query], filter: [request.postFilter], should: [], mustNot: [], boost: 1 }
    : request.query;
  const runtimeMappings = runtimeMappingsOf(readers, request.runtimeMappings);
  const runtime = runtimeMappings ? compileSearchRuntimeFields(runtimeMappings, readers, options) : undefined;
  const profiler = request.profile ? new SearchProfiler() : undefined;
  const compileStart = SearchProfiler.now();
  const deadline =
    request.timeoutMs === undefined || request.timeoutMs < 0 ? undefined : started + request.timeoutMs;
  const limited = (sql: string, into: SqlParams): string => {
    const sliced = request.slice ? sliceMatched(readers, sql, request.slice, into) : sql;
    return request.terminateAfter ? collectedDocs(sliced, request.terminateAfter, into) : sliced;
  };
  const matched = limited(
    await compileMatchedDocs(
      db,
      readers,
      { query: hitsQuery, minScore: request.minScore, indexBoosts: request.indexBoosts },
      params,
      now,
      true,
      runtime,
    ),
    params,
  );
  const ranked = await compileRescore(db, readers, request, matched, params, now, runtime);
  const runtimeKeys = new Map([
    ...(await planRuntimeSort(db, readers, runtime, request.sort, params, matched)),
    ...(await planGeoSort(db, readers, request.sort, params, matched)),
  ]);
  const nestedFilters = await compileNestedSortFilters(db, readers, request.sort, params, now);
  const plan = planSort(readers, request.sort, params, runtimeKeys, nestedFilters);
  const scored =
    request.sort.length === 0 || request.sort.some((k) => k.kind === 'score') || request.trackScores;
  const orderBy = request.sort.length === 0 ? ['q.s DESC'] : plan.orderBy;
  const where = request.searchAfter ? `WHERE ${searchAfterCondition(plan, request.searchAfter, params)}` : '';
  const pageSql =
    request.size === 0
      ? 'SELECT NULL::bigint AS index_id, NULL::bigint AS doc_key, NULL::float4 AS s, NULL::bigint AS rn WHERE false'
      : `SELECT p.*, row_number() OVER () AS rn FROM (
           SELECT * FROM (SELECT q.index_id, q.doc_key, q.s${plan.expressions.map((e) => `, ${e}`).join('')} FROM ${collapsedSource(readers, request, params, plan)} q) q ${where}
           ORDER BY ${[...orderBy, 'q.index_id ASC', 'q.doc_key ASC'].join(', ')}
           LIMIT ${params.add(request.size)} OFFSET ${params.add(request.from)}) p`;
  const known = request.size > 0 ? request.knownTotal : undefined;
  const sql =
    request.size === 0
      ? countOnly(matched, request, params)
      : known
        ? // No count and no materialised matches: q is inlined into the page, so a search_after on
          // doc order becomes a range scan of the documents' primary key that stops at the page.
          `WITH q AS (${ranked})
    SELECT page.*, d.id, d.source::text AS source_text, d.version, d.seq_no, d.primary_term
    FROM (${pageSql}) page
    LEFT JOIN documents d ON d.index_id = page.index_id AND d.doc_key = page.doc_key
    ORDER BY page.rn`
        : `WITH q AS MATERIALIZED (${ranked})
    SELECT t.total, t.max_score, page.*, d.id, d.source::text AS source_text, d.version, d.seq_no, d.primary_term
    FROM (SELECT count(*)::bigint AS total, max(s) AS max_score FROM q) t
    LEFT JOIN LATERAL (${pageSql}) page ON true
    LEFT JOIN documents d ON d.index_id = page.index_id AND d.doc_key = page.doc_key
    ORDER BY page.rn`;
  if (profiler) profiler.compileNanos = SearchProfiler.since(compileStart);
  const executeStart = SearchProfiler.now();
  const ran = await withinBudget(db, deadline, () => db.query<Record<string, unknown>>(sql, params.values));
  if (ran.timedOut) return searchTimedOut(readers, request, started);
  const { rows } = ran.value;
  if (profiler) profiler.executeNanos = SearchProfiler.since(executeStart);
  const fetchStart = SearchProfiler.now();
  const total = known ? known.total : Number(rows[0]?.total ?? 0);
  const maxScore = known ? known.maxScore : (rows[0]?.max_score as number | null);
  const pageRows = rows.filter((r) => r.doc_key !== null && r.doc_key !== undefined) as HitRow[];
  const hits = await buildHits(db, readers, request, pageRows, {
    scored,
    now,
    runtime,
    sortValues:
      request.sort.length > 0
        ? (row) => plan.kinds.map((kind, i) => sortValue(kind, row[`k${i}`], row))
        : undefined,
  });
  await expandCollapsedHits(db, readers, request, pageRows, hits, (inner) =>
    executeSearch(db, readers, inner, options, started),
  );
  await addMatchedQueries(db, readers, request, pageRows, hits, {
    now,
    runtime,
    withScores: request.includeNamedQueriesScore === true,
  });
  if (profiler) profiler.fetchNanos = SearchProfiler.since(fetchStart);
  let response = searchResponse(readers, request, { total, maxScore, hits, scored, started });
  if (request.terminateAfter) {
    const checkParams = new SqlParams();
    const all = await compileMatchedDocs(
      db,
      readers,
      { query: hitsQuery, minScore: request.minScore },
      checkParams,
      now,
      false,
      runtime,
    );
    const sliced = request.slice ? sliceMatched(readers, all, request.slice, checkParams) : all;
    const { rows: over } = await db.query<{ over: boolean }>(
      terminatedEarlySql(sliced, request.terminateAfter, checkParams),
      checkParams.values,
    );
    const { took, timed_out, ...rest } = response;
    response = { took, timed_out, terminated_early: over[0]?.over === true, ...rest };
  }
  if (request.aggregations) {
    const aggParams = new SqlParams();
    const aggsStart = SearchProfiler.now();
    const text = limited(
      await compileMatchedDocs(db, readers, request, aggParams, now, true, runtime),
      aggParams,
    );
    const allDocs =
      request.slice === undefined &&
      request.terminateAfter === undefined &&
      request.query.kind === 'match_all' &&
      request.minScore === undefined &&
      readers.every((reader) => !reader.filter);
    const ctx = await compileAggContext(db, readers, request.aggregations, {
      now,
      runtime,
      maxRuntimeDocs: options.maxRuntimeDocs,
    });
    const aggs = await withinBudget(db, deadline, () =>
      runAggregations(
        db,
        ctx,
        {
          sql: `SELECT doc_key, s AS score FROM (${text}) m`,
          params: aggParams.values,
          scored: true,
          all: allDocs,
        },
        request.aggregations!,
      ),
    );
    // Out of time in the aggregations: the hits stand, the aggregations are left out (timed_out).
    if (aggs.timedOut) return { ...response, timed_out: true };
    response.aggregations = aggs.value;
    if (profiler) profiler.aggsNanos = SearchProfiler.since(aggsStart);
  }
  if (profiler) {
    response.profile = profiler.render(
      readers,
      request.query,
      request.aggregations && Object.keys(request.aggregations),
      hits.length,
    );
  }
  if (request.suggest) response.suggest = await runSuggest(db, readers, request.suggest);
  return response;
}

/** `_count`: the number of matching documents. */
export async function executeCount(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: Pick<SearchRequest, 'query'>,
  options: SearchOptions = {},
): Promise<number> {
  const params = new SqlParams();
  // Count has no runtime_mappings of its own; the mapping's runtime fields still apply.
  const runtimeMappings = runtimeMappingsOf(readers, undefined);
  const runtime = runtimeMappings ? compileSearchRuntimeFields(runtimeMappings, readers, options) : undefined;
  const matched = await compileMatchedDocs(
    db,
    readers,
    { query: request.query },
    params,
    Date.now(),
    false,
    runtime,
  );
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM (${matched}) c`, params.values);
  return Number(rows[0]!.n);
}
