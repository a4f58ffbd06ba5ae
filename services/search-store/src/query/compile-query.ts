import type { Pool, PoolClient } from 'pg';
import { analyze, findAnalyzer } from '../analysis/analyzer';
import { keywordNormalizer, searchAnalyzerFor } from '../index/analyze-document';
import { DEFAULT_DATE_FORMAT } from '../index/date-value';
import { isNumericType } from '../index/indexed-fields';
import { resolveDateMath } from './date-math';
import type { IndexReader, ReaderField } from './index-reader';
import { matchFieldPattern } from './index-reader';
import { minimumShouldMatch } from './minimum-should-match';
import { phraseFrequency } from './phrase-frequency';
import type { Query } from './query-ast';
import { avgFieldLength, idf, idfSum, normInverseCache, termScore, termWeight } from './score/bm25';
import { ShardQueryError } from './shard-query-error';
import { SqlParams } from './sql-params';

/**
 * Query AST → one SQL statement over the inverted index of one index, yielding `(doc_key, s)` with
 * one row per matching document and `s` its float4 score, combined as Lucene combines (API-NOTES §A2.3):
 * BM25 term scores in float4 arithmetic, bool sums in float8 cast to float4, boosts pushed into leaves.
 */
export interface CompileContext {
  db: Pool | PoolClient;
  reader: IndexReader;
  params: SqlParams;
  now: number;
}

const f = Math.fround;
const NOTHING = 'SELECT NULL::bigint AS doc_key, NULL::float4 AS s WHERE false';

export async function compileQuery(
  ctx: CompileContext,
  query: Query,
  boost = 1,
  scoring = true,
): Promise<string> {
  const b = f(boost * query.boost);
  const { params, reader } = ctx;
  // Added only where used: an unreferenced parameter has no type and Postgres rejects the statement.
  const idx = (): string => `${params.add(reader.indexId)}::bigint`;
  const constant = (sql: string): string =>
    `SELECT doc_key, ${params.add(scoring ? b : 0)}::float4 AS s FROM (${sql}) c`;
  switch (query.kind) {
    case 'match_all':
      return `SELECT doc_key, ${params.add(scoring ? b : 0)}::float4 AS s FROM documents WHERE index_id = ${idx()}`;
    case 'match_none':
      return NOTHING;
    case 'match':
      return compileMatch(ctx, query, b, scoring);
    case 'match_phrase':
      return compilePhrase(ctx, query.field, query.query, query.slop, query.analyzer, b, scoring);
    case 'multi_match':
      return compileMultiMatch(ctx, query, b, scoring);
    case 'bool':
      return compileBool(ctx, query, b, scoring);
    case 'dis_max': {
      const parts = await Promise.all(query.queries.map((q) => compileQuery(ctx, q, b, scoring)));
      if (parts.length === 0) return NOTHING;
      const tie = params.add(query.tieBreaker);
      return `SELECT doc_key, CASE WHEN ${tie}::float4 = 0 THEN max(s)
                ELSE (max(s)::float8 + (sum(s::float8) - max(s)::float8) * ${tie}::float4)::float4 END AS s
              FROM (${parts.map((p) => `SELECT doc_key, s FROM (${p}) d`).join(' UNION ALL ')}) u GROUP BY doc_key`;
    }
    case 'constant_score': {
      const inner = await compileQuery(ctx, query.filter, 1, false);
      return constant(`SELECT doc_key FROM (${inner}) i`);
    }
    case 'ids':
      if (query.values.length === 0) return NOTHING;
      return constant(
        `SELECT doc_key FROM documents WHERE index_id = ${idx()} AND id = ANY(${params.add(query.values)}::text[])`,
      );
    case 'term':
      return compileTerms(ctx, query.field, [query.value], b, scoring, query.caseInsensitive, true);
    case 'terms':
      return compileTerms(ctx, query.field, query.values, b, scoring, false, false);
    case 'range':
      return compileRange(ctx, query, b, scoring);
    case 'exists': {
      const ids = [...reader.fields.values()]
        .filter(
          (fl) =>
            (fl.path === query.field || fl.path.startsWith(`${query.field}.`)) && fl.fieldId !== undefined,
        )
        .map((fl) => fl.fieldId!);
      if (ids.length === 0) return NOTHING;
      return constant(
        `SELECT DISTINCT doc_key FROM field_lengths WHERE index_id = ${idx()} AND field_id = ANY(${params.add(ids)}::int[])`,
      );
    }
    case 'prefix':
    case 'wildcard': {
      const field = reader.fields.get(query.field);
      if (!field || field.fieldId === undefined || (field.type !== 'keyword' && field.type !== 'text'))
        return NOTHING;
      const value =
        field.type === 'keyword' ? keywordNormalizer(field, reader.settings)(query.value) : query.value;
      const pattern = query.kind === 'prefix' ? `${escapeLike(value)}%` : wildcardToLike(value);
      const op = query.caseInsensitive ? 'ILIKE' : 'LIKE';
      return constant(
        `SELECT DISTINCT p.doc_key FROM terms t JOIN postings p ON p.index_id = t.index_id AND p.term_id = t.term_id
         WHERE t.index_id = ${idx()} AND t.field_id = ${params.add(field.fieldId)} AND t.term ${op} ${params.add(pattern)}`,
      );
    }
  }
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&');
}

function wildcardToLike(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\' && i + 1 < value.length) out += escapeLike(value[++i]!);
    else if (ch === '*') out += '%';
    else if (ch === '?') out += '_';
    else out += escapeLike(ch);
  }
  return out;
}

interface TermStat {
  termId: string;
  docFreq: number;
}

async function loadTerms(
  ctx: CompileContext,
  field: ReaderField,
  terms: string[],
): Promise<Map<string, TermStat>> {
  if (field.fieldId === undefined || terms.length === 0) return new Map();
  const { rows } = await ctx.db.query<{ term: string; term_id: string; doc_freq: number }>(
    'SELECT term, term_id, doc_freq FROM terms WHERE index_id = $1 AND field_id = $2 AND term = ANY($3::text[])',
    [ctx.reader.indexId, field.fieldId, terms],
  );
  return new Map(rows.map((r) => [r.term, { termId: r.term_id, docFreq: r.doc_freq }]));
}

/**
 * A BooleanQuery of BM25 term clauses on one field, `required` of them needed: what `match` builds.
 * Duplicated terms stay separate clauses, as in Lucene (each scores and counts).
 */
async function compileTermClauses(
  ctx: CompileContext,
  field: ReaderField,
  terms: string[],
  required: number,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const stats = await loadTerms(ctx, field, [...new Set(terms)]);
  const present = terms.filter((t) => stats.has(t));
  if (present.length < required || present.length === 0) return NOTHING;
  const { params } = ctx;
  const avgdl = avgFieldLength({ docCount: field.docCount, sumTotalTermFreq: field.sumTotalTermFreq });
  const termIds = params.add(present.map((t) => stats.get(t)!.termId));
  const weights = params.add(
    present.map((t) => termWeight(boost, idf(stats.get(t)!.docFreq, field.docCount))),
  );
  const score = scoring
    ? `sum((w.w - w.w / (1::float4 + p.freq::float4 * (${params.add(normInverseCache(avgdl))}::float4[])[p.norm + 1]))::float8)::float4`
    : '0::float4';
  return `SELECT p.doc_key, ${score} AS s
          FROM unnest(${termIds}::bigint[], ${weights}::float4[]) AS w(term_id, w)
          JOIN postings p ON p.index_id = ${params.add(ctx.reader.indexId)} AND p.term_id = w.term_id
          GROUP BY p.doc_key HAVING count(*) >= ${params.add(Math.max(required, 1))}`;
}

function analyzerFor(ctx: CompileContext, field: ReaderField, override?: string) {
  return override
    ? findAnalyzer(override, ctx.reader.settings)
    : searchAnalyzerFor(field, ctx.reader.settings);
}

async function compileMatch(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'match' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  if (query.field === '_id')
    return compileQuery(ctx, { kind: 'ids', values: [String(query.query)], boost: 1 }, boost, scoring);
  const field = ctx.reader.fields.get(query.field);
  if (!field) return NOTHING;
  if (field.type !== 'text') {
    return compileTerms(ctx, query.field, [query.query], boost, scoring, false, true);
  }
  const tokens = analyze(analyzerFor(ctx, field, query.analyzer), String(query.query));
  if (tokens.length === 0) {
    return query.zeroTermsQuery === 'all'
      ? compileQuery(ctx, { kind: 'match_all', boost: 1 }, boost, scoring)
      : NOTHING;
  }
  const terms = tokens.map((t) => t.term);
  const required =
    query.operator === 'and'
      ? terms.length
      : Math.max(1, minimumShouldMatch(terms.length, query.minimumShouldMatch));
  return compileTermClauses(ctx, field, terms, required, boost, scoring);
}

async function compilePhrase(
  ctx: CompileContext,
  fieldName: string,
  text: string,
  slop: number,
  analyzerName: string | undefined,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const field = ctx.reader.fields.get(fieldName);
  if (!field) return NOTHING;
  if (field.type !== 'text') return compileTerms(ctx, fieldName, [text], boost, scoring, false, true);
  const tokens = analyze(analyzerFor(ctx, field, analyzerName), text);
  if (tokens.length === 0) return NOTHING;
  if (tokens.length === 1) return compileTermClauses(ctx, field, [tokens[0]!.term], 1, boost, scoring);
  const stats = await loadTerms(ctx, field, [...new Set(tokens.map((t) => t.term))]);
  if (tokens.some((t) => !stats.has(t.term))) return NOTHING;
  const order = tokens
    .map((_, i) => i)
    .sort((a, b) => stats.get(tokens[a]!.term)!.docFreq - stats.get(tokens[b]!.term)!.docFreq);
  const q = new SqlParams();
  const joins = order
    .slice(1)
    .map(
      (i) =>
        `JOIN postings p${i} ON p${i}.index_id = p${order[0]}.index_id AND p${i}.doc_key = p${order[0]}.doc_key AND p${i}.term_id = ${q.add(stats.get(tokens[i]!.term)!.termId)}`,
    )
    .join(' ');
  const { rows } = await ctx.db.query<Record<string, unknown> & { doc_key: string; norm: number }>(
    `SELECT p${order[0]}.doc_key, p${order[0]}.norm, ${tokens.map((_, i) => `p${i}.positions AS pos${i}`).join(', ')}
     FROM postings p${order[0]} ${joins}
     WHERE p${order[0]}.index_id = ${q.add(ctx.reader.indexId)} AND p${order[0]}.term_id = ${q.add(stats.get(tokens[order[0]!]!.term)!.termId)}`,
    q.values,
  );
  const offsets = tokens.map((t) => t.position - tokens[0]!.position);
  const avgdl = avgFieldLength({ docCount: field.docCount, sumTotalTermFreq: field.sumTotalTermFreq });
  const cache = normInverseCache(avgdl);
  const weight = termWeight(
    boost,
    idfSum(
      tokens.map((t) => stats.get(t.term)!.docFreq),
      field.docCount,
    ),
  );
  const keys: string[] = [];
  const scores: number[] = [];
  for (const row of rows) {
    const positions = tokens.map((_, i) => row[`pos${i}`] as number[]);
    const freq = phraseFrequency(positions, offsets, slop);
    if (freq > 0) {
      keys.push(row.doc_key);
      scores.push(scoring ? termScore(weight, freq, cache[row.norm]!) : 0);
    }
  }
  if (keys.length === 0) return NOTHING;
  const { params } = ctx;
  return `SELECT doc_key, s FROM unnest(${params.add(keys)}::bigint[], ${params.add(scores)}::float4[]) AS ph(doc_key, s)`;
}

async function compileMultiMatch(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'multi_match' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const paths = [...ctx.reader.fields.keys()];
  const targets: { field: string; boost: number }[] = [];
  for (const spec of query.fields) {
    for (const path of paths.filter(matchFieldPattern(spec.field))) {
      const field = ctx.reader.fields.get(path)!;
      // A wildcard skips fields a text query cannot target (ES sets lenient for `*`).
      if (spec.field.includes('*') && field.type !== 'text' && field.type !== 'keyword') continue;
      targets.push({ field: path, boost: spec.boost });
    }
  }
  const parts: string[] = [];
  for (const target of targets) {
    const fieldBoost = f(boost * target.boost);
    if (query.type === 'phrase') {
      parts.push(
        await compilePhrase(ctx, target.field, query.query, query.slop, query.analyzer, fieldBoost, scoring),
      );
    } else {
      const match: Query = {
        kind: 'match',
        field: target.field,
        query: query.query,
        operator: query.operator,
        minimumShouldMatch: query.minimumShouldMatch,
        analyzer: query.analyzer,
        zeroTermsQuery: 'none',
        boost: 1,
      };
      parts.push(
        await compileQuery(ctx, match, fieldBoost, scoring).catch((error: unknown) => {
          if (error instanceof ShardQueryError) return NOTHING;
          throw error;
        }),
      );
    }
  }
  if (parts.length === 0) return NOTHING;
  const union = parts.map((p) => `SELECT doc_key, s FROM (${p}) m`).join(' UNION ALL ');
  if (query.type === 'most_fields')
    return `SELECT doc_key, sum(s::float8)::float4 AS s FROM (${union}) u GROUP BY doc_key`;
  const tie = ctx.params.add(query.tieBreaker);
  return `SELECT doc_key, CASE WHEN ${tie}::float4 = 0 THEN max(s)
            ELSE (max(s)::float8 + (sum(s::float8) - max(s)::float8) * ${tie}::float4)::float4 END AS s
          FROM (${union}) u GROUP BY doc_key`;
}

async function compileBool(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'bool' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const { params } = ctx;
  const parts: string[] = [];
  for (const q of query.must)
    parts.push(`SELECT doc_key, s, 0 AS k FROM (${await compileQuery(ctx, q, boost, scoring)}) m`);
  for (const q of query.filter)
    parts.push(`SELECT doc_key, 0::float4 AS s, 0 AS k FROM (${await compileQuery(ctx, q, 1, false)}) fl`);
  for (const q of query.should)
    parts.push(`SELECT doc_key, s, 1 AS k FROM (${await compileQuery(ctx, q, boost, scoring)}) sh`);
  const required = query.must.length + query.filter.length;
  let msm =
    query.minimumShouldMatch !== undefined
      ? minimumShouldMatch(query.should.length, query.minimumShouldMatch)
      : 0;
  if (query.minimumShouldMatch === undefined && required === 0 && query.should.length > 0) msm = 1;
  let base: string;
  if (parts.length === 0) {
    // ES: an empty bool is match_all (score = boost); one with only must_not matches all docs with score 0.
    const score = query.mustNot.length === 0 && scoring ? boost : 0;
    base = `SELECT doc_key, ${params.add(score)}::float4 AS s FROM documents WHERE index_id = ${params.add(ctx.reader.indexId)}`;
  } else {
    base = `SELECT doc_key, sum(s::float8)::float4 AS s FROM (${parts.join(' UNION ALL ')}) u GROUP BY doc_key
            HAVING count(*) FILTER (WHERE k = 0) = ${params.add(required)} AND count(*) FILTER (WHERE k = 1) >= ${params.add(msm)}`;
  }
  if (query.mustNot.length === 0) return base;
  const excluded = await Promise.all(query.mustNot.map((q) => compileQuery(ctx, q, 1, false)));
  return `SELECT b.doc_key, b.s FROM (${base}) b
          WHERE NOT EXISTS (SELECT 1 FROM (${excluded.map((e) => `SELECT doc_key FROM (${e}) n`).join(' UNION ALL ')}) x WHERE x.doc_key = b.doc_key)`;
}

/** term / terms / match on non-text fields: BM25 on keyword and text terms, constant 1 on numbers, dates, booleans. */
async function compileTerms(
  ctx: CompileContext,
  fieldName: string,
  values: (string | number | boolean)[],
  boost: number,
  scoring: boolean,
  caseInsensitive: boolean,
  scored: boolean,
): Promise<string> {
  const { params, reader } = ctx;
  if (fieldName === '_id')
    return compileQuery(ctx, { kind: 'ids', values: values.map(String), boost: 1 }, boost, scoring);
  const field = reader.fields.get(fieldName);
  if (!field || field.fieldId === undefined || values.length === 0) return NOTHING;
  const constant = (sql: string): string =>
    `SELECT doc_key, ${params.add(scoring ? boost : 0)}::float4 AS s FROM (${sql}) c`;
  const idx = (): string => `${params.add(reader.indexId)}::bigint`;
  const fid = (): string => `${params.add(field.fieldId)}::int`;
  if (field.type === 'text' || field.type === 'keyword') {
    // Keyword queries go through the field's normalizer, as ES's KeywordFieldType does.
    const normalize = field.type === 'keyword' ? keywordNormalizer(field, reader.settings) : (v: string) => v;
    const terms = values.map((v) => normalize(String(v)));
    if (caseInsensitive) {
      return constant(
        `SELECT DISTINCT p.doc_key FROM terms t JOIN postings p ON p.index_id = t.index_id AND p.term_id = t.term_id
         WHERE t.index_id = ${idx()} AND t.field_id = ${fid()} AND lower(t.term) = ANY(${params.add(terms.map((t) => t.toLowerCase()))}::text[])`,
      );
    }
    if (scored && terms.length === 1) return compileTermClauses(ctx, field, terms, 1, boost, scoring);
    return constant(
      `SELECT DISTINCT p.doc_key FROM terms t JOIN postings p ON p.index_id = t.index_id AND p.term_id = t.term_id
       WHERE t.index_id = ${idx()} AND t.field_id = ${fid()} AND t.term = ANY(${params.add(terms)}::text[])`,
    );
  }
  const numbers = values.map((v) => toQueryNumber(ctx, field, v));
  return constant(
    `SELECT DISTINCT doc_key FROM doc_values WHERE index_id = ${idx()} AND field_id = ${fid()} AND num = ANY(${params.add(numbers)}::float8[])`,
  );
}

function toQueryNumber(
  ctx: CompileContext,
  field: ReaderField,
  value: string | number | boolean,
  roundUp = false,
  format?: string,
  timeZone?: string,
): number {
  if (field.type === 'date') {
    return resolveDateMath(typeof value === 'boolean' ? String(value) : value, {
      now: ctx.now,
      format: format ?? field.mapping.format ?? DEFAULT_DATE_FORMAT,
      roundUp,
      timeZone,
    });
  }
  if (field.type === 'boolean') {
    if (value === true || value === 'true') return 1;
    if (value === false || value === 'false') return 0;
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `Can't parse boolean value [${String(value)}], expected [true] or [false]`,
    });
  }
  const n = typeof value === 'number' ? value : Number(value);
  if (
    typeof value === 'boolean' ||
    !Number.isFinite(n) ||
    (typeof value === 'string' && value.trim() === '')
  ) {
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `failed to create query: For input string: "${String(value)}"`,
    });
  }
  return isNumericType(field.type) &&
    ['long', 'integer', 'short', 'byte'].includes(field.type) &&
    !Number.isInteger(n)
    ? n
    : n;
}

async function compileRange(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'range' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const { params, reader } = ctx;
  const field = reader.fields.get(query.field);
  if (!field || field.fieldId === undefined) return NOTHING;
  const conditions: string[] = [];
  const constant = (sql: string): string =>
    `SELECT doc_key, ${params.add(scoring ? boost : 0)}::float4 AS s FROM (${sql}) c`;
  const bounds = [
    ['gt', '>', true],
    ['gte', '>=', false],
    ['lt', '<', false],
    ['lte', '<=', true],
  ] as const;
  if (field.type === 'keyword' || field.type === 'text') {
    for (const [key, op] of bounds) {
      const v = query[key];
      if (v !== undefined) conditions.push(`kw ${op} ${params.add(String(v))}`);
    }
  } else {
    for (const [key, op, roundUp] of bounds) {
      const v = query[key];
      if (v !== undefined)
        conditions.push(
          `num ${op} ${params.add(toQueryNumber(ctx, field, v, roundUp, query.format, query.timeZone))}`,
        );
    }
  }
  const column = field.type === 'keyword' || field.type === 'text' ? 'kw' : 'num';
  return constant(
    `SELECT DISTINCT doc_key FROM doc_values WHERE index_id = ${params.add(reader.indexId)} AND field_id = ${params.add(field.fieldId)}
       AND ${column} IS NOT NULL ${conditions.map((c) => `AND ${c}`).join(' ')}`,
  );
}
