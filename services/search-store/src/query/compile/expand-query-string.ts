import { analyze, findAnalyzer, flattenSettings, type Analyzer } from '../../analysis/analyzer';
import { lowercaseFilter } from '../../analysis/token-filters';
import { searchAnalyzerFor } from '../../index/analyze-document';
import { matchFieldPattern, type IndexReader, type ReaderField } from '../index-reader';
import type { Query } from '../query-ast';
import {
  isSyntaxError,
  type MultiMatchType,
  type QsNode,
  type QueryStringQuery,
  type SimpleQueryStringQuery,
} from '../query-string-ast';
import { ShardQueryError } from '../shard-query-error';
import { DEFAULT_MAX_DETERMINIZED_STATES } from '../../text/regexp-automaton';
import { REGEXP_FLAGS } from '../../text/regexp-syntax';

/**
 * A query_string / simple_query_string tree → the query kinds we already compile, against one
 * index's mapping: what ES's QueryStringQueryParser and SimpleQueryStringQueryParser build per shard
 * (ES 8 reference, "Query string query"). Bare terms are analysed: one field and one token is a term
 * query, several tokens a bool of them under default_operator; several fields a multi_match of the
 * query's `type` (best_fields: DisjunctionMaxQuery with tie_breaker). Phrases are match_phrase,
 * `x*` prefix, wildcards wildcard, `[a TO b]` range, `_exists_:f` exists, all on each field and
 * combined the same way. Wildcard/prefix/range scores are constant (ES's default constant_score
 * rewrite). So the scores are those of the kinds they become, which match ES's float32 values.
 */
const f = Math.fround;

type Qs = QueryStringQuery | SimpleQueryStringQuery;
type Target = { path: string; boost: number };
interface Context {
  reader: IndexReader;
  q: Qs;
  defaults: Target[];
  /** The default field is `*` (all fields): a bare `*` is match_all, lenient defaults to true. */
  allFields: boolean;
  lenient: boolean;
}

const NONE: Query = { kind: 'match_none', boost: 1 };

/** The query one index runs for a query_string; throws ES's query-phase error for a syntax error. */
export function expandQueryString(reader: IndexReader, q: Qs): Query {
  if (isSyntaxError(q.tree)) {
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `Failed to parse query [${q.query}]`,
      index_uuid: reader.uuid,
      index: reader.name,
      caused_by: { type: 'parse_exception', reason: q.tree.reason, caused_by: { ...q.tree.cause } },
    });
  }
  const patterns = defaultPatterns(reader, q);
  const allFields = patterns.some((p) => p.field === '*');
  const ctx: Context = {
    reader,
    q,
    defaults: resolve(reader, patterns),
    allFields,
    lenient: q.lenient ?? allFields,
  };
  let query = expand(ctx, q.tree) ?? NONE;
  if (q.minimumShouldMatch !== undefined && query.kind === 'bool')
    query = { ...query, minimumShouldMatch: q.minimumShouldMatch };
  return q.boost === 1 ? query : { ...query, boost: f(query.boost * q.boost) };
}

/** `fields`, else `default_field`, else the index's `index.query.default_field` (default `*`). */
function defaultPatterns(reader: IndexReader, q: Qs): { field: string; boost: number }[] {
  if (q.fields && q.fields.length > 0) return q.fields;
  if (q.kind === 'query_string' && q.defaultField !== undefined) return [{ field: q.defaultField, boost: 1 }];
  const setting = flattenSettings(reader.settings);
  const value = setting['index.query.default_field'] ?? setting['query.default_field'];
  const list = Array.isArray(value)
    ? value.map(String)
    : typeof value === 'string'
      ? value.split(',')
      : ['*'];
  return list.map((item) => {
    const caret = item.lastIndexOf('^');
    return caret < 0
      ? { field: item.trim(), boost: 1 }
      : { field: item.slice(0, caret).trim(), boost: Number(item.slice(caret + 1)) || 1 };
  });
}

/**
 * Field names and patterns → mapped paths. A pattern keeps only fields a text query can target
 * (text and keyword), as ES's resolveMappingField skips the others for patterns; a plain name is
 * kept even when unmapped (it then matches nothing).
 */
function resolve(reader: IndexReader, patterns: { field: string; boost: number }[]): Target[] {
  const out = new Map<string, number>();
  for (const { field, boost } of patterns) {
    if (!field.includes('*')) {
      out.set(field, f((out.get(field) ?? 1) * boost));
      continue;
    }
    const matches = matchFieldPattern(field);
    for (const [path, fl] of reader.fields) {
      if (!matches(path) || (fl.type !== 'text' && fl.type !== 'keyword')) continue;
      out.set(path, f((out.get(path) ?? 1) * boost));
    }
  }
  return [...out].map(([path, boost]) => ({ path, boost }));
}

function fieldsFor(ctx: Context, field: string | undefined, quoted: boolean): Target[] {
  let targets = field === undefined ? ctx.defaults : resolve(ctx.reader, [{ field, boost: 1 }]);
  const suffix = ctx.q.quoteFieldSuffix;
  if (quoted && suffix) {
    // quote_field_suffix: the suffixed field where it is mapped, else the field itself.
    targets = targets.map((t) =>
      ctx.reader.fields.has(t.path + suffix) ? { path: t.path + suffix, boost: t.boost } : t,
    );
  }
  return targets;
}

function withBoost(query: Query, boost: number): Query {
  return boost === 1 ? query : { ...query, boost: f(query.boost * boost) };
}

/** Several fields: DisjunctionMaxQuery with the tie_breaker (the type's default: most_fields 1, else 0). */
function combine(ctx: Context, parts: Query[]): Query | undefined {
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  return { kind: 'dis_max', queries: parts, tieBreaker: tieBreaker(ctx), boost: 1 };
}

function tieBreaker(ctx: Context): number {
  return ctx.q.tieBreaker ?? (ctx.q.type === 'most_fields' ? 1 : 0);
}

function expand(ctx: Context, node: QsNode): Query | undefined {
  switch (node.t) {
    case 'bool':
      return expandBool(ctx, node.clauses);
    case 'boost': {
      const inner = expand(ctx, node.node);
      return inner && withBoost(inner, node.boost);
    }
    case 'match_all':
      return { kind: 'match_all', boost: 1 };
    case 'multi':
    case 'term': {
      const clauses = termClauses(ctx, node.field, node.text);
      if (clauses === undefined || clauses.length === 0) return undefined;
      return clauses.length === 1
        ? clauses[0]!.query
        : boolOf(clauses.map((c) => ({ occur: c.occur, query: c.query })));
    }
    case 'phrase':
      return phrase(ctx, node.field, node.text, node.slop ?? ctx.q.phraseSlop);
    case 'prefix':
      return perField(ctx, node.field, (path, field) => prefix(ctx, path, field, node.text));
    case 'wildcard':
      return wildcard(ctx, node.field, node.text);
    case 'range':
      return perField(ctx, node.field, (path, field) => range(ctx, path, field, node));
    case 'fuzzy':
      return perField(ctx, node.field, (path, fl) => fuzzy(ctx, path, fl, node.text, node.edits));
    case 'regexp':
      return perField(ctx, node.field, (path, fl) => {
        if (fl.type !== 'text' && fl.type !== 'keyword') return multiTermRefusal(ctx, 'regexp', path, fl);
        return {
          kind: 'regexp',
          field: path,
          value: node.text,
          flags: REGEXP_FLAGS.ALL,
          caseInsensitive: false,
          maxDeterminizedStates: ctx.q.maxDeterminizedStates ?? DEFAULT_MAX_DETERMINIZED_STATES,
          boost: 1,
        };
      });
  }
}

type Clause = { occur: 'must' | 'should' | 'must_not'; query: Query };

function boolOf(clauses: Clause[]): Query {
  return {
    kind: 'bool',
    must: clauses.filter((c) => c.occur === 'must').map((c) => c.query),
    should: clauses.filter((c) => c.occur === 'should').map((c) => c.query),
    filter: [],
    mustNot: clauses.filter((c) => c.occur === 'must_not').map((c) => c.query),
    boost: 1,
  };
}

function expandBool(ctx: Context, input: { occur: Clause['occur']; node: QsNode }[]): Query | undefined {
  const clauses: Clause[] = [];
  for (const { occur, node } of input) {
    if (node.t === 'multi') {
      // addMultiTermClauses: the analysed run's own clauses join this bool with the default operator.
      const parts = termClauses(ctx, node.field, node.text);
      if (!parts) continue;
      if (input.length === 1 && parts.length === 1) return parts[0]!.query;
      for (const part of parts) clauses.push({ occur: node.occur, query: part.query });
      continue;
    }
    const query = expand(ctx, node);
    if (query) clauses.push({ occur, query });
  }
  if (clauses.length === 0) return undefined;
  return boolOf(clauses);
}

/**
 * A bare term (or a run of them) on its fields: `_exists_`, `>=10`-style ranges, else analysed. On one
 * text field the tokens are separate clauses (so a run flattens into the bool around it); otherwise
 * one clause.
 */
function termClauses(ctx: Context, field: string | undefined, text: string): Clause[] | undefined {
  const occur = ctx.q.defaultOperator === 'and' ? 'must' : 'should';
  if (field === '_exists_') return [{ occur, query: { kind: 'exists', field: text, boost: 1 } }];
  if (field !== undefined && ctx.q.kind === 'query_string' && text.length > 1) {
    const op = /^(>=|<=|>|<)/.exec(text)?.[0];
    if (op) {
      const value = text.slice(op.length);
      const node: Extract<QsNode, { t: 'range' }> = {
        t: 'range',
        includeLower: op === '>=',
        includeUpper: op === '<=',
        ...(op.startsWith('>') ? { lower: value } : { upper: value }),
      };
      const query = perField(ctx, field, (path, fl) => range(ctx, path, fl, node));
      return query ? [{ occur, query }] : undefined;
    }
  }
  const targets = fieldsFor(ctx, field, false);
  if (targets.length === 0) return [{ occur, query: NONE }];
  const type = ctx.q.type;
  if (targets.length > 1) {
    const multi: Query = {
      kind: 'multi_match',
      query: text,
      fields: targets.map((t) => ({ field: t.path, boost: t.boost })),
      type: type,
      tieBreaker: tieBreaker(ctx),
      operator: ctx.q.defaultOperator,
      slop: ctx.q.phraseSlop,
      analyzer: ctx.q.analyzer,
      boost: 1,
    };
    return [{ occur, query: multi }];
  }
  const { path, boost } = targets[0]!;
  const single = singleField(ctx, path, text, type);
  return single?.map((c) => ({ occur: c.occur, query: withBoost(c.query, boost) }));
}

function analyzerOf(ctx: Context, field: ReaderField, name: string | undefined): Analyzer {
  return name ? findAnalyzer(name, ctx.reader.settings) : searchAnalyzerFor(field, ctx.reader.settings);
}

function singleField(ctx: Context, path: string, text: string, type: MultiMatchType): Clause[] | undefined {
  const field = ctx.reader.fields.get(path);
  const occur = ctx.q.defaultOperator === 'and' ? 'must' : 'should';
  if (!field) return [{ occur, query: NONE }];
  if (type === 'phrase' || type === 'phrase_prefix') {
    const query: Query =
      type === 'phrase'
        ? {
            kind: 'match_phrase',
            field: path,
            query: text,
            slop: ctx.q.phraseSlop,
            analyzer: ctx.q.analyzer,
            boost: 1,
          }
        : {
            kind: 'match_phrase_prefix',
            field: path,
            query: text,
            slop: ctx.q.phraseSlop,
            maxExpansions: 50,
            analyzer: ctx.q.analyzer,
            boost: 1,
          };
    return [{ occur, query }];
  }
  if (type === 'bool_prefix') {
    const query: Query = {
      kind: 'match_bool_prefix',
      field: path,
      query: text,
      operator: ctx.q.defaultOperator,
      analyzer: ctx.q.analyzer,
      boost: 1,
    };
    return [{ occur, query }];
  }
  if (field.type === 'text') {
    const tokens = analyze(analyzerOf(ctx, field, ctx.q.analyzer), text);
    if (tokens.length === 0) return undefined;
    return tokens.map((t) => ({
      occur,
      query: { kind: 'term', field: path, value: t.term, caseInsensitive: false, boost: 1 },
    }));
  }
  if (!acceptsValue(field, text)) {
    if (ctx.lenient) return [{ occur, query: NONE }];
  }
  const query: Query = {
    kind: 'match',
    field: path,
    query: text,
    operator: ctx.q.defaultOperator,
    analyzer: ctx.q.analyzer,
    zeroTermsQuery: 'none',
    boost: 1,
  };
  return [{ occur, query }];
}

const NUMERIC = new Set([
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
]);

/** Whether a term query on the field can take the text (lenient turns a refusal into no match). */
function acceptsValue(field: ReaderField, text: string): boolean {
  if (NUMERIC.has(field.type)) return text.trim() !== '' && Number.isFinite(Number(text));
  if (field.type === 'boolean') return text === 'true' || text === 'false' || text === '';
  return true;
}

function phrase(ctx: Context, field: string | undefined, text: string, slop: number): Query | undefined {
  const targets = fieldsFor(ctx, field, true);
  if (targets.length === 0) return NONE;
  const analyzer = ctx.q.kind === 'query_string' ? (ctx.q.quoteAnalyzer ?? ctx.q.analyzer) : ctx.q.analyzer;
  const parts: Query[] = targets.map((t) => {
    const fl = ctx.reader.fields.get(t.path);
    if (fl && fl.type !== 'text' && fl.type !== 'keyword' && !acceptsValue(fl, text) && ctx.lenient)
      return NONE;
    return withBoost({ kind: 'match_phrase', field: t.path, query: text, slop, analyzer, boost: 1 }, t.boost);
  });
  return combine(ctx, parts);
}

/** One query per target field (unmapped: none), combined as several fields are. */
function perField(
  ctx: Context,
  field: string | undefined,
  build: (path: string, field: ReaderField) => Query | undefined,
): Query | undefined {
  const targets = fieldsFor(ctx, field, false);
  if (targets.length === 0) return NONE;
  const parts: Query[] = [];
  for (const t of targets) {
    const fl = ctx.reader.fields.get(t.path);
    const q = fl ? build(t.path, fl) : NONE;
    if (q) parts.push(withBoost(q, t.boost));
  }
  return combine(ctx, parts);
}

/** Lucene's Analyzer.normalize for multi-term queries: here, the lowercase filter when the analyzer has one. */
function normalize(ctx: Context, field: ReaderField, text: string): string {
  if (field.type !== 'text') return text;
  const analyzer = analyzerOf(ctx, field, ctx.q.analyzer);
  return analyzer.filters.includes(lowercaseFilter) ? text.toLowerCase() : text;
}

function multiTermRefusal(ctx: Context, what: string, path: string, field: ReaderField): Query {
  if (ctx.lenient) return NONE;
  throw new ShardQueryError({
    type: 'query_shard_exception',
    reason: `Can only use ${what} queries on keyword and text fields - not on [${path}] which is of type [${field.type}]`,
    index_uuid: ctx.reader.uuid,
    index: ctx.reader.name,
  });
}

function prefix(ctx: Context, path: string, field: ReaderField, text: string): Query | undefined {
  if (field.type !== 'text' && field.type !== 'keyword') return multiTermRefusal(ctx, 'prefix', path, field);
  if (field.type === 'text' && ctx.q.analyzeWildcard) {
    // analyze_wildcard: the analysed tokens, the last one a prefix (getPossiblyAnalyzedPrefixQuery).
    const tokens = analyze(analyzerOf(ctx, field, ctx.q.analyzer), text);
    if (tokens.length === 0) return undefined;
    const occur = ctx.q.defaultOperator === 'and' ? 'must' : 'should';
    const clauses: Clause[] = tokens.map((t, i) => ({
      occur,
      query:
        i === tokens.length - 1
          ? { kind: 'prefix', field: path, value: t.term, caseInsensitive: false, boost: 1 }
          : { kind: 'term', field: path, value: t.term, caseInsensitive: false, boost: 1 },
    }));
    return clauses.length === 1 ? clauses[0]!.query : boolOf(clauses);
  }
  return {
    kind: 'prefix',
    field: path,
    value: normalize(ctx, field, text),
    caseInsensitive: false,
    boost: 1,
  };
}

/**
 * `term~` / `term~N` (getFuzzyQuery): a fuzzy query per field on the normalised term, `~` alone taking
 * the query's `fuzziness` (AUTO), with its fuzzy_prefix_length, fuzzy_max_expansions and transpositions.
 */
function fuzzy(
  ctx: Context,
  path: string,
  field: ReaderField,
  text: string,
  edits: string | undefined,
): Query {
  if (field.type !== 'text' && field.type !== 'keyword') return multiTermRefusal(ctx, 'fuzzy', path, field);
  const options = ctx.q.fuzzy;
  const query: Query = {
    kind: 'fuzzy',
    field: path,
    value: normalize(ctx, field, text),
    fuzziness: edits === undefined || edits === '' ? options.fuzziness : edits,
    prefixLength: options.prefixLength,
    maxExpansions: options.maxExpansions,
    transpositions: options.transpositions,
    boost: 1,
  };
  if (options.rewrite !== undefined) query.rewrite = options.rewrite;
  return query;
}

function wildcard(ctx: Context, field: string | undefined, text: string): Query | undefined {
  if (text === '*') {
    // getWildcardQuery: `*` on all fields is match_all, on a field it is exists.
    if (field === '*' || (field === undefined && ctx.allFields)) return { kind: 'match_all', boost: 1 };
    if (field !== undefined && !field.includes('*')) return { kind: 'exists', field, boost: 1 };
    return perField(ctx, field, (path) => ({ kind: 'exists', field: path, boost: 1 }));
  }
  return perField(ctx, field, (path, fl) => {
    if (fl.type !== 'text' && fl.type !== 'keyword') return multiTermRefusal(ctx, 'wildcard', path, fl);
    return {
      kind: 'wildcard',
      field: path,
      value: normalize(ctx, fl, text),
      caseInsensitive: false,
      boost: 1,
    };
  });
}

function range(ctx: Context, path: string, field: ReaderField, node: Extract<QsNode, { t: 'range' }>): Query {
  const query: Extract<Query, { kind: 'range' }> = { kind: 'range', field: path, boost: 1 };
  const norm = (v: string): string => normalize(ctx, field, v);
  if (node.lower !== undefined) query[node.includeLower ? 'gte' : 'gt'] = norm(node.lower);
  if (node.upper !== undefined) query[node.includeUpper ? 'lte' : 'lt'] = norm(node.upper);
  if (ctx.lenient && NUMERIC.has(field.type)) {
    const bad = [node.lower, node.upper].some((v) => v !== undefined && !acceptsValue(field, v));
    if (bad) return NONE;
  }
  return query;
}

/**
 * match_bool_prefix (ES 8 reference): the analysed terms as term clauses and the last one as a prefix
 * (constant score), combined by `operator` with `minimum_should_match`. Other field types run the
 * text as one prefix (keyword) or term query, as ES's MatchQueryParser does.
 */
export function expandMatchBoolPrefix(
  reader: IndexReader,
  query: Extract<Query, { kind: 'match_bool_prefix' }>,
): Query {
  const field = reader.fields.get(query.field);
  if (!field) return NONE;
  if (field.type === 'keyword')
    return {
      kind: 'prefix',
      field: query.field,
      value: query.query,
      caseInsensitive: false,
      boost: query.boost,
    };
  if (field.type !== 'text')
    return {
      kind: 'match',
      field: query.field,
      query: query.query,
      operator: 'or',
      zeroTermsQuery: 'none',
      boost: query.boost,
    };
  const analyzer = query.analyzer
    ? findAnalyzer(query.analyzer, reader.settings)
    : searchAnalyzerFor(field, reader.settings);
  const tokens = analyze(analyzer, query.query);
  if (tokens.length === 0) return NONE;
  const clauses: Query[] = tokens.map((t, i) =>
    i === tokens.length - 1
      ? { kind: 'prefix', field: query.field, value: t.term, caseInsensitive: false, boost: 1 }
      : { kind: 'term', field: query.field, value: t.term, caseInsensitive: false, boost: 1 },
  );
  const and = query.operator === 'and';
  return {
    kind: 'bool',
    must: and ? clauses : [],
    should: and ? [] : clauses,
    filter: [],
    mustNot: [],
    minimumShouldMatch: and ? undefined : query.minimumShouldMatch,
    boost: query.boost,
  };
}
