import { EsError } from '@acme/common';
import type { Pool, PoolClient } from 'pg';
import { findAnalyzer } from '../analysis/analyzer';
import { searchAnalyzerFor } from '../index/analyze-document';
import { formatDateValue, parseDateValue } from '../index/date-value';
import { isNumericType, valuesAtPath } from '../index/indexed-fields';
import { compileQuery } from './compile-query';
import { explainHit } from './explain-hit';
import { collectHighlightTerms, highlightValues } from './highlight';
import { matchFieldPattern, type IndexReader, type ReaderField } from './index-reader';
import { formatFloat } from './score/bm25';
import type { Query } from './query-ast';
import type { SearchRequest, SortKey } from './search-request';
import type { SearchSeams } from './search-seams';
import { ShardQueryError } from './shard-query-error';
import { filterSource } from './source-filter';
import { SqlParams } from './sql-params';

/** The `_search` response body (API-NOTES §A1.3). */
export interface SearchResponse {
  took: number;
  timed_out: false;
  _shards: { total: number; successful: number; skipped: 0; failed: 0 };
  hits: {
    total?: { value: number; relation: 'eq' | 'gte' } | number;
    max_score: number | null;
    hits: Record<string, unknown>[];
  };
  aggregations?: Record<string, unknown>;
}

const DEFAULT_MAX_RESULT_WINDOW = 10000;

/** The matched documents of all target indices as one SQL: `(index_id, doc_key, s)`. */
export async function compileMatchedDocs(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: Pick<SearchRequest, 'query' | 'minScore'>,
  params: SqlParams,
  now: number,
  scoring = true,
): Promise<string> {
  if (readers.length === 0)
    return 'SELECT NULL::bigint AS index_id, NULL::bigint AS doc_key, NULL::float4 AS s WHERE false';
  const parts: string[] = [];
  for (const reader of readers) {
    const query: Query = reader.filter
      ? { kind: 'bool', must: [request.query], filter: [reader.filter], should: [], mustNot: [], boost: 1 }
      : request.query;
    const sql = await compileQuery({ db, reader, params, now }, query, 1, scoring);
    parts.push(
      `SELECT ${params.add(reader.indexId)}::bigint AS index_id, doc_key, s FROM (${sql}) r${parts.length}`,
    );
  }
  const union = parts.join(' UNION ALL ');
  return request.minScore === undefined
    ? union
    : `SELECT * FROM (${union}) ms WHERE s >= ${params.add(request.minScore)}::float4`;
}

function maxResultWindow(readers: IndexReader[]): number {
  const values = readers.map((r) =>
    Number(r.settings['index.max_result_window'] ?? DEFAULT_MAX_RESULT_WINDOW),
  );
  return values.length === 0 ? DEFAULT_MAX_RESULT_WINDOW : Math.min(...values);
}

interface SortPlan {
  expressions: string[];
  orderBy: string[];
  /** How to print each sort value in hits[i].sort. */
  kinds: ('score' | 'doc' | 'num' | 'kw' | 'bool')[];
  keys: SortKey[];
}

function planSort(readers: IndexReader[], keys: SortKey[], params: SqlParams): SortPlan {
  const plan: SortPlan = { expressions: [], orderBy: [], kinds: [], keys };
  keys.forEach((key, i) => {
    const dir = key.order === 'asc' ? 'ASC' : 'DESC';
    if (key.kind === 'score') {
      plan.expressions.push(`q.s AS k${i}`);
      plan.orderBy.push(`k${i} ${dir}`);
      plan.kinds.push('score');
      return;
    }
    if (key.kind === 'doc') {
      plan.expressions.push(`q.doc_key AS k${i}`);
      plan.orderBy.push(`q.index_id ${dir}, k${i} ${dir}`);
      plan.kinds.push('doc');
      return;
    }
    const mapped = readers.map((r) => ({ reader: r, field: r.fields.get(key.field) }));
    const some = mapped.find((m) => m.field)?.field;
    if (!some && !key.unmappedType) {
      throw new ShardQueryError({
        type: 'query_shard_exception',
        reason: `No mapping found for [${key.field}] in order to sort on`,
      });
    }
    const type = some?.type ?? key.unmappedType!;
    if (type === 'text') {
      throw new ShardQueryError({
        type: 'illegal_argument_exception',
        reason: `Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${key.field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
      });
    }
    const column = type === 'keyword' ? 'kw' : 'num';
    const cases = mapped
      .filter((m) => m.field?.fieldId !== undefined)
      .map((m) => `WHEN ${params.add(m.reader.indexId)}::bigint THEN ${params.add(m.field!.fieldId)}::int`);
    const fieldId = cases.length === 0 ? 'NULL::int' : `CASE q.index_id ${cases.join(' ')} END`;
    const agg = (key.mode ?? (key.order === 'asc' ? 'min' : 'max')) === 'min' ? 'min' : 'max';
    plan.expressions.push(
      `(SELECT ${agg}(v.${column}) FROM doc_values v WHERE v.index_id = q.index_id AND v.doc_key = q.doc_key AND v.field_id = ${fieldId}) AS k${i}`,
    );
    plan.orderBy.push(`k${i} ${dir} NULLS ${key.missing === '_first' ? 'FIRST' : 'LAST'}`);
    plan.kinds.push(type === 'keyword' ? 'kw' : type === 'boolean' ? 'bool' : 'num');
  });
  return plan;
}

/** search_after: the rows strictly after the given sort values, in the sort order (nulls last). */
function searchAfterCondition(plan: SortPlan, after: unknown[], params: SqlParams): string {
  if (after.length !== plan.keys.length) {
    throw new EsError(
      'illegal_argument_exception',
      `search_after has ${after.length} value(s) but sort has ${plan.keys.length}.`,
    );
  }
  const column = (i: number): string =>
    plan.kinds[i] === 'doc' ? 'q.doc_key' : plan.kinds[i] === 'score' ? 'q.s' : `k${i}`;
  const cast = (i: number): string =>
    plan.kinds[i] === 'kw'
      ? 'text'
      : plan.kinds[i] === 'score'
        ? 'float4'
        : plan.kinds[i] === 'doc'
          ? 'bigint'
          : 'float8';
  const ors: string[] = [];
  for (let i = 0; i < after.length; i++) {
    const eqs: string[] = [];
    for (let j = 0; j < i; j++) {
      eqs.push(
        after[j] === null ? `${column(j)} IS NULL` : `${column(j)} = ${params.add(after[j])}::${cast(j)}`,
      );
    }
    const key = plan.keys[i]!;
    const op = key.order === 'asc' ? '>' : '<';
    const value = after[i];
    const strict =
      value === null
        ? 'false'
        : `(${column(i)} ${op} ${params.add(value)}::${cast(i)} OR ${column(i)} IS NULL)`;
    ors.push([...eqs, strict].join(' AND '));
  }
  return `(${ors.join(' OR ')})`;
}

export async function executeSearch(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  seams: SearchSeams = {},
  started = Date.now(),
): Promise<SearchResponse> {
  if (request.aggregations && !seams.aggregations) {
    throw new EsError(
      'illegal_argument_exception',
      'aggregations are not available in this build of search-store',
    );
  }
  if (request.runtimeMappings && !seams.runtimeFields) {
    throw new EsError(
      'illegal_argument_exception',
      'runtime_mappings are not available in this build of search-store',
    );
  }
  const window = maxResultWindow(readers);
  if (request.from + request.size > window) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `Result window is too large, from + size must be less than or equal to: [${window}] but was [${request.from + request.size}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`,
    });
  }
  const now = started;
  const params = new SqlParams();
  const hitsQuery: Query = request.postFilter
    ? { kind: 'bool', must: [request.query], filter: [request.postFilter], should: [], mustNot: [], boost: 1 }
    : request.query;
  const matched = await compileMatchedDocs(
    db,
    readers,
    { query: hitsQuery, minScore: request.minScore },
    params,
    now,
  );
  const plan = planSort(readers, request.sort, params);
  const scored =
    request.sort.length === 0 || request.sort.some((k) => k.kind === 'score') || request.trackScores;
  const orderBy = request.sort.length === 0 ? ['q.s DESC'] : plan.orderBy;
  const where = request.searchAfter ? `WHERE ${searchAfterCondition(plan, request.searchAfter, params)}` : '';
  const pageSql =
    request.size === 0
      ? 'SELECT NULL::bigint AS index_id, NULL::bigint AS doc_key, NULL::float4 AS s, NULL::bigint AS rn WHERE false'
      : `SELECT p.*, row_number() OVER () AS rn FROM (
           SELECT * FROM (SELECT q.index_id, q.doc_key, q.s${plan.expressions.map((e) => `, ${e}`).join('')} FROM q) q ${where}
           ORDER BY ${[...orderBy, 'q.index_id ASC', 'q.doc_key ASC'].join(', ')}
           LIMIT ${params.add(request.size)} OFFSET ${params.add(request.from)}) p`;
  const sql = `WITH q AS MATERIALIZED (${matched})
    SELECT t.total, t.max_score, page.*, d.id, d.source, d.version, d.seq_no, d.primary_term
    FROM (SELECT count(*)::bigint AS total, max(s) AS max_score FROM q) t
    LEFT JOIN LATERAL (${pageSql}) page ON true
    LEFT JOIN documents d ON d.index_id = page.index_id AND d.doc_key = page.doc_key
    ORDER BY page.rn`;
  const { rows } = await db.query<Record<string, unknown>>(sql, params.values);
  const total = Number(rows[0]?.total ?? 0);
  const maxScore = rows[0]?.max_score as number | null;
  const byId = new Map(readers.map((r) => [r.indexId, r]));
  const pageRows = rows.filter((r) => r.doc_key !== null && r.doc_key !== undefined);
  const hits: Record<string, unknown>[] = [];
  const highlightTerms = request.highlight ? highlightTermsFor(readers, request) : undefined;
  const runtime =
    request.runtimeMappings && seams.runtimeFields
      ? seams.runtimeFields.compile(request.runtimeMappings, readers)
      : undefined;
  for (const row of pageRows) {
    const reader = byId.get(String(row.index_id))!;
    const source = row.source as Record<string, unknown>;
    const hit: Record<string, unknown> = { _index: reader.name, _id: row.id };
    if (request.version) hit._version = Number(row.version);
    if (request.seqNoPrimaryTerm) {
      hit._seq_no = Number(row.seq_no);
      hit._primary_term = Number(row.primary_term);
    }
    hit._score = scored ? formatFloat(row.s as number) : null;
    const filtered = filterSource(source, request.source);
    if (filtered !== undefined) hit._source = filtered;
    const fields = extractFields(reader, source, request.fields) ?? {};
    if (runtime && request.fields.length > 0) {
      // Runtime fields appear only in `fields`, never in `_source` (API-NOTES §A1.3).
      const values = await runtime.valuesFor(reader.indexId, source);
      for (const { field: pattern } of request.fields) {
        const test = matchFieldPattern(pattern);
        for (const name of runtime.types.keys()) {
          const v = values[name];
          if (test(name) && v && v.length > 0) fields[name] = v;
        }
      }
    }
    if (Object.keys(fields).length > 0) hit.fields = fields;
    if (request.highlight && highlightTerms) {
      const highlight = highlightHit(reader, source, request, highlightTerms);
      if (highlight) hit.highlight = highlight;
    }
    if (request.sort.length > 0) hit.sort = plan.kinds.map((kind, i) => sortValue(kind, row[`k${i}`], row));
    if (request.explain) {
      hit._shard = `[${reader.name}][0]`;
      hit._node = 'search-store';
      hit._explanation = await explainHit(
        db,
        reader,
        request.query,
        String(row.doc_key),
        row.s as number,
        now,
      );
    }
    hits.push(hit);
  }
  const response: SearchResponse = {
    took: Date.now() - started,
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
  }
  if (request.aggregations && seams.aggregations) {
    const aggParams = new SqlParams();
    const text = await compileMatchedDocs(db, readers, request, aggParams, now);
    response.aggregations = await seams.aggregations.runAggregations(
      db,
      { readers, now, runtimeFields: runtime },
      { text, values: aggParams.values },
      request.aggregations,
    );
  }
  return response;
}

function sortValue(kind: SortPlan['kinds'][number], value: unknown, row: Record<string, unknown>): unknown {
  if (kind === 'score') return formatFloat(row.s as number);
  if (kind === 'doc') return Number(value);
  if (value === null || value === undefined) return null;
  if (kind === 'kw') return value;
  return Number(value);
}

/** `fields: [...]`: values of mapped fields from `_source`, always arrays, dates in ISO form. */
function extractFields(
  reader: IndexReader,
  source: Record<string, unknown>,
  requested: { field: string; format?: string }[],
): Record<string, unknown[]> | undefined {
  if (requested.length === 0) return undefined;
  const out: Record<string, unknown[]> = {};
  for (const { field: pattern } of requested) {
    const test = matchFieldPattern(pattern);
    for (const field of reader.fields.values()) {
      if (!test(field.path) || out[field.path]) continue;
      const values = valuesAtPath(source, field.sourcePath)
        .filter((v) => typeof v !== 'object')
        .map((v) => fieldValue(field, v))
        .filter((v) => v !== undefined);
      if (values.length > 0) out[field.path] = values;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function fieldValue(field: ReaderField, value: unknown): unknown {
  if (field.type === 'text' || field.type === 'keyword') {
    const text = String(value);
    const ignoreAbove = field.mapping.ignore_above;
    return ignoreAbove !== undefined && [...text].length > ignoreAbove ? undefined : text;
  }
  if (field.type === 'date') {
    const ms = parseDateValue(value, field.mapping.format);
    return ms === undefined ? undefined : formatDateValue(ms);
  }
  if (field.type === 'boolean') return value === true || value === 'true';
  if (isNumericType(field.type)) {
    const n = Number(value);
    if (!Number.isFinite(n)) return undefined;
    return ['long', 'integer', 'short', 'byte'].includes(field.type) ? Math.trunc(n) : n;
  }
  return value;
}

function highlightTermsFor(
  readers: IndexReader[],
  request: SearchRequest,
): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>();
  for (const reader of readers) {
    const analyzerFor = (path: string) => {
      const field = reader.fields.get(path);
      if (!field) return undefined;
      return field.type === 'text' ? searchAnalyzerFor(field, reader.settings) : findAnalyzer('keyword');
    };
    const fieldsFor = (pattern: string) => [...reader.fields.keys()].filter(matchFieldPattern(pattern));
    out.set(reader.indexId, collectHighlightTerms(request.query, analyzerFor, fieldsFor));
  }
  return out;
}

function highlightHit(
  reader: IndexReader,
  source: Record<string, unknown>,
  request: SearchRequest,
  terms: Map<string, Map<string, Set<string>>>,
): Record<string, string[]> | undefined {
  const highlight = request.highlight!;
  const perField = terms.get(reader.indexId) ?? new Map<string, Set<string>>();
  const out: Record<string, string[]> = {};
  for (const [pattern, options] of Object.entries(highlight.fields)) {
    const test = matchFieldPattern(pattern);
    for (const field of reader.fields.values()) {
      if (!test(field.path) || (field.type !== 'text' && field.type !== 'keyword')) continue;
      const set = perField.get(field.path);
      if (!set || set.size === 0) continue;
      const analyzer =
        field.type === 'text' ? searchAnalyzerFor(field, reader.settings) : findAnalyzer('keyword');
      const values = valuesAtPath(source, field.sourcePath)
        .filter((v) => typeof v !== 'object')
        .map(String);
      const fragments = highlightValues(values, analyzer, set, {
        preTag: (options.preTags ?? highlight.preTags)[0]!,
        postTag: (options.postTags ?? highlight.postTags)[0]!,
        fragmentSize: options.fragmentSize ?? highlight.fragmentSize,
        numberOfFragments: options.numberOfFragments ?? highlight.numberOfFragments,
      });
      if (fragments.length > 0) out[field.path] = fragments;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `_count`: the number of matching documents. */
export async function executeCount(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: Pick<SearchRequest, 'query'>,
): Promise<number> {
  const params = new SqlParams();
  const matched = await compileMatchedDocs(db, readers, { query: request.query }, params, Date.now(), false);
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM (${matched}) c`, params.values);
  return Number(rows[0]!.n);
}
