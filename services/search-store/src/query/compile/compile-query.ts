import { analyze } from '../../analysis/analyzer';
import { keywordNormalizer } from '../../index/analyze-document';
import { docsWithField, docsWithValue } from '../../index/doc-values-reader';
import { flattenedExistsCondition, flattenedPrefixCondition, flattenedTarget } from './compile-flattened';
import { docsWithTerms } from '../../index/postings-reader';
import { docsWithVector } from '../../index/vector-reader';
import { NOTHING, type CompileContext } from './compile-context';
import { compilePhrase } from './compile-phrase';
import { compilePhrasePrefix } from './compile-phrase-prefix';
import { analyzerFor, compileTermClauses } from './compile-term-clauses';
import { compileRange, compileTerms } from './compile-term-level';
import { compileRuntimeLeaf, runtimeLeafField } from './compile-runtime-leaf';
import { checkFuzzyField, compileFuzzy, compileFuzzyClauses } from './compile-fuzzy';
import { compileRegexpQuery } from './compile-regexp';
import { compileCrossFields } from './compile-cross-fields';
import { expandMatchBoolPrefix, expandQueryString } from './expand-query-string';
import { compileVectorQuery } from './compile-vector-query';
import { compileGeoDistance } from './compile-geo-distance';
import { compileGeoBoundingBox } from './compile-geo-bounding-box';
import { compileFunctionScore } from './compile-function-score';
import { compileNested, compileNestedMatchAll } from './compile-nested';
import { matchFieldPattern } from '../index-reader';
import { minimumShouldMatch } from '../minimum-should-match';
import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';

/**
 * Query AST → one SQL statement over the inverted index of one index, yielding `(doc_key, s)` with
 * one row per matching document and `s` its float4 score, combined as Lucene combines (API-NOTES §A2.3):
 * BM25 term scores in float4 arithmetic, bool sums in float8 cast to float4, boosts pushed into leaves.
 */
const f = Math.fround;

export type { CompileContext } from './compile-context';

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
  const runtimeLeaf = runtimeLeafField(query, ctx.runtime);
  if (runtimeLeaf && ctx.runtime) return compileRuntimeLeaf(ctx, ctx.runtime, runtimeLeaf, b, scoring);
  const onIndex = indexNameQuery(query, reader.name);
  if (onIndex !== undefined) {
    // `_index` queries (multi-index searches) match all of this index's documents or none of them.
    return onIndex
      ? `SELECT doc_key, ${params.add(scoring ? b : 0)}::float4 AS s FROM documents WHERE index_id = ${idx()}`
      : NOTHING;
  }
  switch (query.kind) {
    case 'nested':
      return compileNested(ctx, query, b, scoring, compileQuery);
    case 'match_all':
      if (reader.nestedScope !== undefined) return compileNestedMatchAll(ctx, scoring ? b : 0);
      return `SELECT doc_key, ${params.add(scoring ? b : 0)}::float4 AS s FROM documents WHERE index_id = ${idx()}`;
    case 'match_none':
      return NOTHING;
    case 'match':
      return compileMatch(ctx, query, b, scoring);
    case 'match_phrase':
      return compilePhrase(ctx, query.field, query.query, query.slop, query.analyzer, b, scoring);
    case 'match_phrase_prefix':
      return compilePhrasePrefix(
        ctx,
        query.field,
        query.query,
        query.slop,
        query.maxExpansions,
        query.analyzer,
        b,
        scoring,
      );
    case 'multi_match':
      return query.type === 'cross_fields'
        ? compileCrossFields(ctx, query, b, scoring, compileQuery)
        : compileMultiMatch(ctx, query, b, scoring);
    case 'query_string':
    case 'simple_query_string':
      return compileQuery(ctx, expandQueryString(reader, query), boost, scoring);
    case 'match_bool_prefix':
      return compileQuery(ctx, expandMatchBoolPrefix(reader, query), boost, scoring);
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
      const flat = flattenedTarget(reader, query.field);
      if (flat && flat.key !== '') {
        if (flat.field.fieldId === undefined) return NOTHING;
        const within = flattenedExistsCondition(params, flat);
        return constant(docsWithValue(idx(), params.add(flat.field.fieldId), within));
      }
      if (reader.fields.get(query.field)?.type === 'dense_vector')
        return constant(docsWithVector(idx(), `${params.add(query.field)}::text`));
      const ids = [...reader.fields.values()]
        .filter(
          (fl) =>
            (fl.path === query.field || fl.path.startsWith(`${query.field}.`)) && fl.fieldId !== undefined,
        )
        .map((fl) => fl.fieldId!);
      if (ids.length === 0) return NOTHING;
      const fieldIds = params.add(ids);
      return constant(docsWithField(idx(), fieldIds));
    }
    case 'function_score':
      return compileFunctionScore(ctx, query, b, scoring, compileQuery);
    case 'knn':
    case 'script_score':
    case 'rrf':
    case 'sparse_vector':
      return compileVectorQuery(ctx, query, b, scoring, compileQuery);
    case 'prefix':
    case 'wildcard': {
      const flat = query.kind === 'prefix' ? flattenedTarget(reader, query.field) : undefined;
      if (flat) {
        if (flat.field.fieldId === undefined) return NOTHING;
        const starts = flattenedPrefixCondition(params, flat, query.value, query.caseInsensitive);
        return constant(docsWithValue(idx(), params.add(flat.field.fieldId), starts));
      }
      const field = reader.fields.get(query.field);
      if (!field || field.fieldId === undefined || (field.type !== 'keyword' && field.type !== 'text'))
        return NOTHING;
      const value =
        field.type === 'keyword' ? keywordNormalizer(field, reader.settings)(query.value) : query.value;
      const pattern = query.kind === 'prefix' ? `${escapeLike(value)}%` : wildcardToLike(value);
      const op = query.caseInsensitive ? 'ILIKE' : 'LIKE';
      return constant(
        docsWithTerms(idx(), params.add(field.fieldId), (term) => `${term} ${op} ${params.add(pattern)}`),
      );
    }
    case 'fuzzy':
      return compileFuzzy(ctx, query, b, scoring);
    case 'regexp':
      return compileRegexpQuery(ctx, query, b, scoring);
    case 'geo_distance':
      return compileGeoDistance(ctx, query, b, scoring);
    case 'geo_bounding_box':
      return compileGeoBoundingBox(ctx, query, b, scoring);
  }
}

/** For term/terms/match/prefix/wildcard on `_index`: whether this index matches; undefined otherwise. */
function indexNameQuery(query: Query, indexName: string): boolean | undefined {
  switch (query.kind) {
    case 'term':
    case 'match':
      return query.field === '_index'
        ? String(query.kind === 'term' ? query.value : query.query) === indexName
        : undefined;
    case 'terms':
      return query.field === '_index' ? query.values.map(String).includes(indexName) : undefined;
    case 'prefix':
      return query.field === '_index' ? indexName.startsWith(query.value) : undefined;
    case 'wildcard':
      return query.field === '_index' ? matchFieldPattern(query.value)(indexName) : undefined;
    default:
      return undefined;
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

async function compileMatch(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'match' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  if (query.field === '_id')
    return compileQuery(ctx, { kind: 'ids', values: [String(query.query)], boost: 1 }, boost, scoring);
  const field = ctx.reader.fields.get(query.field);
  if (!field && !flattenedTarget(ctx.reader, query.field)) return NOTHING;
  if (field && query.fuzzy && field.type !== 'text') {
    checkFuzzyField(field);
    const value = keywordNormalizer(field, ctx.reader.settings)(String(query.query));
    return compileFuzzyClauses(ctx, field, [value], 1, query.fuzzy, boost, scoring);
  }
  if (field?.type !== 'text') {
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
  if (query.fuzzy) return compileFuzzyClauses(ctx, field, terms, required, query.fuzzy, boost, scoring);
  return compileTermClauses(ctx, field, terms, required, boost, scoring);
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
    if (query.type === 'phrase_prefix') {
      parts.push(
        await compilePhrasePrefix(
          ctx,
          target.field,
          query.query,
          query.slop,
          50,
          query.analyzer,
          fieldBoost,
          scoring,
        ),
      );
    } else if (query.type === 'bool_prefix') {
      const prefix: Query = {
        kind: 'match_bool_prefix',
        field: target.field,
        query: query.query,
        operator: query.operator,
        minimumShouldMatch: query.minimumShouldMatch,
        analyzer: query.analyzer,
        boost: 1,
      };
      parts.push(await compileQuery(ctx, prefix, fieldBoost, scoring));
    } else if (query.type === 'phrase') {
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
        ...(query.fuzzy ? { fuzzy: query.fuzzy } : {}),
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
    if (ctx.reader.nestedScope !== undefined) base = compileNestedMatchAll(ctx, score);
    else
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
