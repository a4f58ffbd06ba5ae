import { EsError } from '@acme/common';
import { locationOf } from './json-locations';
import type { Query } from '../query-ast';
import { ES_QUERY_NAMES, suggestQueryName } from './suggest-query-name';
import { matchFuzziness, parseFuzzy } from './parse-fuzzy';
import { parseRegexpQuery } from './parse-regexp';
import { parseTermsLookup } from './parse-terms-lookup';
import {
  parseMatchBoolPrefix,
  parseQueryStringQuery,
  parseSimpleQueryStringQuery,
} from './parse-query-string-query';
import { vectorQueryParsers } from './parse-vector-queries';
import { parseGeoDistance } from './parse-geo-distance';
import { parseGeoBoundingBox } from './parse-geo-bounding-box';
import { parseFunctionScore } from './parse-function-score';
import { withQueryName } from './query-name';
import { nestedQueryParsers } from './parse-nested';

/**
 * The query DSL → typed AST, with Elasticsearch's errors: an unknown query is `parsing_exception`
 * "unknown query [x]", a wrong shape is `parsing_exception` with the query's name, each with line/col.
 */
type Json = Record<string, unknown>;

function parsingError(
  reason: string,
  parent: object | undefined,
  key: string | undefined,
  causedBy?: EsError,
): EsError {
  const at = parent && key !== undefined ? locationOf(parent, key) : undefined;
  return new EsError('parsing_exception', reason, {
    metadata: { line: at?.line ?? 1, col: at?.col ?? 1 },
    causedBy: causedBy?.toCause(),
  });
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function asNumber(value: unknown, query: string, key: string, parent: Json): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw parsingError(`[${query}] failed to parse field [${key}]`, parent, key);
  }
  return n;
}

function asString(value: unknown, query: string, key: string, parent: Json): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw parsingError(`[${query}] failed to parse field [${key}]`, parent, key);
}

function asScalar(value: unknown, query: string, key: string, parent: Json): string | number | boolean {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw parsingError(`[${query}] failed to parse field [${key}]`, parent, key);
}

/**
 * ES 8 `indices.query.bool.max_nested_depth` (default 30; 20 in 7.x): AbstractQueryBuilder.parseTopLevelQuery
 * counts every named query on the way down, compound or leaf, and refuses the one past the limit.
 */
export const MAX_NESTED_DEPTH = 30;
const TOO_DEEP =
  'The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]';
let depth = 0; // parsing is synchronous, so one counter per process is exact
/** Where the refused query starts: every bool above it reports that position, as Jackson's parser does. */
const tooDeepAt = new WeakMap<EsError, string>();

/** `{query: {…}}`'s value: exactly one named query. */
export function parseQuery(body: unknown, parent?: Json, key?: string): Query {
  if (depth >= MAX_NESTED_DEPTH) {
    const error = new EsError('illegal_argument_exception', TOO_DEEP);
    const first = isObject(body) ? Object.keys(body)[0] : undefined;
    const at =
      (first !== undefined && locationOf(body as Json, first)) || (parent && key && locationOf(parent, key));
    tooDeepAt.set(error, at ? `${at.line}:${at.col}` : '1:1');
    throw error;
  }
  depth += 1;
  try {
    return parseOneQuery(body, parent, key);
  } finally {
    depth -= 1;
  }
}

function parseOneQuery(body: unknown, parent?: Json, key?: string): Query {
  if (!isObject(body)) throw parsingError('query malformed, must start with start_object', parent, key);
  const names = Object.keys(body);
  if (names.length === 0) return { kind: 'match_all', boost: 1 };
  if (names.length > 1) {
    throw parsingError(
      `[${names[0]}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`,
      body,
      names[1],
    );
  }
  const name = names[0]!;
  // The query name is the client's: an own property only, never Object.prototype's `constructor`.
  const parser = Object.hasOwn(PARSERS, name) ? PARSERS[name] : undefined;
  if (!parser && ES_QUERY_NAMES.includes(name)) {
    // A query Elasticsearch has and we do not: say so rather than call it unknown.
    throw parsingError(`[${name}] query is not supported by search-store`, body, name);
  }
  if (!parser) {
    const at = locationOf(body, name);
    const cause = new EsError(
      'x_content_parse_exception',
      `[${at?.line ?? 1}:${at?.col ?? 1}] unknown field [${name}]`,
    );
    const error = parsingError(`unknown query [${name}]${suggestQueryName(name)}`, body, name);
    return throwWithCause(error, {
      type: 'named_object_not_found_exception',
      reason: cause.reason,
    });
  }
  return withQueryName(parser(body[name], body, name), body[name]);
}

function throwWithCause(error: EsError, cause: { type: string; reason: string }): never {
  throw error.with({ causedBy: cause });
}

type Parser = (value: unknown, parent: Json, name: string) => Query;

function expectObject(value: unknown, parent: Json, name: string): Json {
  if (!isObject(value))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
  return value;
}

/** `{field: value}` or `{field: {param…}}`, plus top-level `boost`/`_name` beside the field in some queries. */
function singleField(
  value: unknown,
  parent: Json,
  name: string,
): { field: string; spec: unknown; container: Json } {
  const object = expectObject(value, parent, name);
  const fields = Object.keys(object).filter((k) => k !== 'boost' && k !== '_name');
  if (fields.length === 0) throw parsingError(`[${name}] query doesn't support empty field`, parent, name);
  if (fields.length > 1) {
    throw parsingError(
      `[${name}] query doesn't support multiple fields, found [${fields[0]}] and [${fields[1]}]`,
      object,
      fields[1],
    );
  }
  return { field: fields[0]!, spec: object[fields[0]!], container: object };
}

function checkKeys(spec: Json, allowed: readonly string[], name: string): void {
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) throw parsingError(`[${name}] query does not support [${key}]`, spec, key);
  }
}

function boostOf(spec: Json, name: string): number {
  return spec.boost === undefined ? 1 : asNumber(spec.boost, name, 'boost', spec);
}

function msmOf(spec: Json, name: string): string | undefined {
  const v = spec.minimum_should_match;
  return v === undefined || v === null ? undefined : asString(v, name, 'minimum_should_match', spec);
}

function operatorOf(spec: Json, name: string): 'or' | 'and' {
  if (spec.operator === undefined) return 'or';
  const op = asString(spec.operator, name, 'operator', spec).toLowerCase();
  if (op !== 'or' && op !== 'and')
    throw parsingError(`[${name}] query does not support operator [${op}]`, spec, 'operator');
  return op;
}

const MATCH_KEYS = [
  'query',
  'operator',
  'minimum_should_match',
  'analyzer',
  'boost',
  '_name',
  'zero_terms_query',
  'fuzziness',
  'lenient',
  'auto_generate_synonyms_phrase_query',
  'prefix_length',
  'max_expansions',
  'fuzzy_transpositions',
  'fuzzy_rewrite',
];

const parseMatch: Parser = (value, parent, name) => {
  const { field, spec, container } = singleField(value, parent, name);
  if (!isObject(spec)) {
    return {
      kind: 'match',
      field,
      query: asScalar(spec, name, field, container),
      operator: 'or',
      zeroTermsQuery: 'none',
      boost: 1,
    };
  }
  checkKeys(spec, MATCH_KEYS, name);
  if (spec.query === undefined) throw parsingError(`[${name}] requires query value`, container, field);
  return {
    kind: 'match',
    field,
    query: asScalar(spec.query, name, 'query', spec),
    operator: operatorOf(spec, name),
    minimumShouldMatch: msmOf(spec, name),
    analyzer: spec.analyzer === undefined ? undefined : asString(spec.analyzer, name, 'analyzer', spec),
    zeroTermsQuery: spec.zero_terms_query === 'all' ? 'all' : 'none',
    boost: boostOf(spec, name),
    ...matchFuzziness(spec, name),
  };
};

const parseMatchPhrase: Parser = (value, parent, name) => {
  const { field, spec, container } = singleField(value, parent, name);
  if (!isObject(spec))
    return { kind: 'match_phrase', field, query: asString(spec, name, field, container), slop: 0, boost: 1 };
  checkKeys(spec, ['query', 'slop', 'analyzer', 'boost', '_name', 'zero_terms_query'], name);
  if (spec.query === undefined) throw parsingError(`[${name}] requires query value`, container, field);
  return {
    kind: 'match_phrase',
    field,
    query: asString(spec.query, name, 'query', spec),
    slop: spec.slop === undefined ? 0 : asNumber(spec.slop, name, 'slop', spec),
    analyzer: spec.analyzer === undefined ? undefined : asString(spec.analyzer, name, 'analyzer', spec),
    boost: boostOf(spec, name),
  };
};

const parseMatchPhrasePrefix: Parser = (value, parent, name) => {
  const { field, spec, container } = singleField(value, parent, name);
  if (!isObject(spec)) {
    return {
      kind: 'match_phrase_prefix',
      field,
      query: asString(spec, name, field, container),
      slop: 0,
      maxExpansions: 50,
      boost: 1,
    };
  }
  checkKeys(
    spec,
    ['query', 'slop', 'max_expansions', 'analyzer', 'boost', '_name', 'zero_terms_query'],
    name,
  );
  if (spec.query === undefined) throw parsingError(`[${name}] requires query value`, container, field);
  return {
    kind: 'match_phrase_prefix',
    field,
    query: asString(spec.query, name, 'query', spec),
    slop: spec.slop === undefined ? 0 : asNumber(spec.slop, name, 'slop', spec),
    maxExpansions:
      spec.max_expansions === undefined ? 50 : asNumber(spec.max_expansions, name, 'max_expansions', spec),
    analyzer: spec.analyzer === undefined ? undefined : asString(spec.analyzer, name, 'analyzer', spec),
    boost: boostOf(spec, name),
  };
};

const parseMultiMatch: Parser = (value, parent, name) => {
  const spec = expectObject(value, parent, name);
  checkKeys(
    spec,
    [
      'query',
      'fields',
      'type',
      'tie_breaker',
      'operator',
      'minimum_should_match',
      'slop',
      'analyzer',
      'boost',
      '_name',
      'lenient',
      'fuzziness',
      'prefix_length',
      'max_expansions',
      'fuzzy_transpositions',
      'fuzzy_rewrite',
    ],
    name,
  );
  if (spec.query === undefined) throw parsingError(`[${name}] requires query value`, parent, name);
  const rawFields =
    spec.fields === undefined ? ['*'] : Array.isArray(spec.fields) ? spec.fields : [spec.fields];
  const fields = rawFields.map((f) => {
    const text = asString(f, name, 'fields', spec);
    const [field, boost] = text.split('^');
    return { field: field!, boost: boost === undefined ? 1 : Number(boost) };
  });
  const type = spec.type === undefined ? 'best_fields' : asString(spec.type, name, 'type', spec);
  if (
    type !== 'best_fields' &&
    type !== 'most_fields' &&
    type !== 'cross_fields' &&
    type !== 'phrase' &&
    type !== 'phrase_prefix' &&
    type !== 'bool_prefix'
  ) {
    throw parsingError(`[${name}] query does not support type ${type}`, spec, 'type');
  }
  if (spec.fuzziness !== undefined && type !== 'best_fields' && type !== 'most_fields')
    throw parsingError(`Fuzziness not allowed for type [${type}]`, spec, 'fuzziness');
  // ES's MultiMatchQueryBuilder: bool_prefix builds no phrases, so slop is refused.
  if (type === 'bool_prefix' && spec.slop !== undefined)
    throw parsingError(`[${name}] [slop] not allowed for type [bool_prefix]`, spec, 'slop');
  return {
    ...matchFuzziness(spec, name),
    kind: 'multi_match',
    query: asString(spec.query, name, 'query', spec),
    fields,
    type,
    tieBreaker: spec.tie_breaker === undefined ? 0 : asNumber(spec.tie_breaker, name, 'tie_breaker', spec),
    operator: operatorOf(spec, name),
    minimumShouldMatch: msmOf(spec, name),
    slop: spec.slop === undefined ? 0 : asNumber(spec.slop, name, 'slop', spec),
    analyzer: spec.analyzer === undefined ? undefined : asString(spec.analyzer, name, 'analyzer', spec),
    boost: boostOf(spec, name),
  };
};

function clauses(value: unknown, parent: Json, key: string): Query[] {
  try {
    if (Array.isArray(value)) return value.map((q) => parseQuery(q, parent, key));
    if (isObject(value)) return [parseQuery(value, parent, key)];
  } catch (error) {
    throw wrapTooDeep(error, key);
  }
  throw parsingError(`[bool] query does not support [${key}]`, parent, key);
}

/**
 * ES 8 parses `bool` with an ObjectParser, which wraps what a clause throws in an XContentParseException
 * "[line:col] [bool] failed to parse field [must]" (with the parser's position, which has not moved);
 * so a too-deep query under bools answers x_content_parse_exception, one cause per bool, down to the
 * illegal_argument_exception. Other errors pass unchanged.
 */
function wrapTooDeep(error: unknown, key: string): unknown {
  if (!(error instanceof EsError)) return error;
  const at = tooDeepAt.get(error);
  if (at === undefined) return error;
  const wrapped = new EsError('x_content_parse_exception', `[${at}] [bool] failed to parse field [${key}]`, {
    causedBy: error.toCause(),
  });
  tooDeepAt.set(wrapped, at);
  return wrapped;
}

const parseBool: Parser = (value, parent, name) => {
  const spec = expectObject(value, parent, name);
  checkKeys(
    spec,
    [
      'must',
      'should',
      'filter',
      'must_not',
      'minimum_should_match',
      'boost',
      '_name',
      'adjust_pure_negative',
    ],
    name,
  );
  return {
    kind: 'bool',
    must: spec.must === undefined ? [] : clauses(spec.must, spec, 'must'),
    should: spec.should === undefined ? [] : clauses(spec.should, spec, 'should'),
    filter: spec.filter === undefined ? [] : clauses(spec.filter, spec, 'filter'),
    mustNot: spec.must_not === undefined ? [] : clauses(spec.must_not, spec, 'must_not'),
    minimumShouldMatch: msmOf(spec, name),
    boost: boostOf(spec, name),
  };
};

const parseTerm: Parser = (value, parent, name) => {
  const { field, spec, container } = singleField(value, parent, name);
  if (!isObject(spec))
    return {
      kind: 'term',
      field,
      value: asScalar(spec, name, field, container),
      caseInsensitive: false,
      boost: 1,
    };
  checkKeys(spec, ['value', 'boost', '_name', 'case_insensitive'], name);
  if (spec.value === undefined) throw parsingError(`[${name}] query requires a value`, container, field);
  return {
    kind: 'term',
    field,
    value: asScalar(spec.value, name, 'value', spec),
    caseInsensitive: spec.case_insensitive === true,
    boost: boostOf(spec, name),
  };
};

const parseTerms: Parser = (value, parent, name) => {
  const spec = expectObject(value, parent, name);
  const fields = Object.keys(spec).filter((k) => k !== 'boost' && k !== '_name');
  if (fields.length !== 1) {
    throw parsingError(`[${name}] query requires exactly one field`, parent, name);
  }
  const field = fields[0]!;
  const values = spec[field];
  if (isObject(values)) return { ...parseTermsLookup(values), field, boost: boostOf(spec, name) };
  if (!Array.isArray(values)) throw parsingError(`[${name}] query does not support [${field}]`, spec, field);
  return {
    kind: 'terms',
    field,
    values: values.map((v) => asScalar(v, name, field, spec)),
    boost: boostOf(spec, name),
  };
};

const parseRange: Parser = (value, parent, name) => {
  const { field, spec, container } = singleField(value, parent, name);
  if (!isObject(spec))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, container, field);
  checkKeys(
    spec,
    [
      'gt',
      'gte',
      'lt',
      'lte',
      'from',
      'to',
      'include_lower',
      'include_upper',
      'format',
      'time_zone',
      'boost',
      '_name',
      'relation',
    ],
    name,
  );
  const bound = (key: string): string | number | undefined => {
    const v = spec[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string' || typeof v === 'number') return v;
    throw parsingError(`[${name}] query does not support [${key}]`, spec, key);
  };
  const query: Extract<Query, { kind: 'range' }> = { kind: 'range', field, boost: boostOf(spec, name) };
  const from = bound('from');
  const to = bound('to');
  if (from !== undefined) query[spec.include_lower === false ? 'gt' : 'gte'] = from;
  if (to !== undefined) query[spec.include_upper === false ? 'lt' : 'lte'] = to;
  for (const key of ['gt', 'gte', 'lt', 'lte'] as const) {
    const v = bound(key);
    if (v !== undefined) query[key] = v;
  }
  if (spec.format !== undefined) query.format = asString(spec.format, name, 'format', spec);
  if (spec.time_zone !== undefined) query.timeZone = asString(spec.time_zone, name, 'time_zone', spec);
  return query;
};

const parseExists: Parser = (value, parent, name) => {
  const spec = expectObject(value, parent, name);
  checkKeys(spec, ['field', 'boost', '_name'], name);
  if (spec.field === undefined) throw parsingError(`[${name}] must be provided with a [field]`, parent, name);
  return { kind: 'exists', field: asString(spec.field, name, 'field', spec), boost: boostOf(spec, name) };
};

const parseIds: Parser = (value, parent, name) => {
  const spec = expectObject(value, parent, name);
  checkKeys(spec, ['values', 'boost', '_name', 'type'], name);
  if (!Array.isArray(spec.values))
    throw parsingError(`[${name}] query does not support [values]`, spec, 'values');
  return {
    kind: 'ids',
    values: spec.values.map((v) => asString(v, name, 'values', spec)),
    boost: boostOf(spec, name),
  };
};

function parsePattern(kind: 'prefix' | 'wildcard'): Parser {
  return (value, parent, name) => {
    const { field, spec, container } = singleField(value, parent, name);
    if (!isObject(spec)) {
      return { kind, field, value: asString(spec, name, field, container), caseInsensitive: false, boost: 1 };
    }
    checkKeys(spec, ['value', 'wildcard', 'boost', '_name', 'case_insensitive', 'rewrite'], name);
    const raw = spec.value ?? spec.wildcard;
    if (raw === undefined) throw parsingError(`[${name}] query requires a value`, container, field);
    return {
      kind,
      field,
      value: asString(raw, name, 'value', spec),
      caseInsensitive: spec.case_insensitive === true,
      boost: boostOf(spec, name),
    };
  };
}

const parseConstantScore: Parser = (value, parent, name) => {
  const spec = expectObject(value, parent, name);
  checkKeys(spec, ['filter', 'boost', '_name'], name);
  if (spec.filter === undefined)
    throw parsingError("[constant_score] requires a 'filter' element", parent, name);
  return {
    kind: 'constant_score',
    filter: parseQuery(spec.filter, spec, 'filter'),
    boost: boostOf(spec, name),
  };
};

const parseDisMax: Parser = (value, parent, name) => {
  const spec = expectObject(value, parent, name);
  checkKeys(spec, ['queries', 'tie_breaker', 'boost', '_name'], name);
  if (!Array.isArray(spec.queries))
    throw parsingError("[dis_max] requires 'queries' field with at least one clause", parent, name);
  return {
    kind: 'dis_max',
    queries: spec.queries.map((q) => parseQuery(q, spec, 'queries')),
    tieBreaker: spec.tie_breaker === undefined ? 0 : asNumber(spec.tie_breaker, name, 'tie_breaker', spec),
    boost: boostOf(spec, name),
  };
};

const PARSERS: Record<string, Parser> = {
  ...vectorQueryParsers(parseQuery),
  ...nestedQueryParsers(parseQuery),
  match_all: (value, parent, name) => ({
    kind: 'match_all',
    boost: boostOf(expectObject(value, parent, name), name),
  }),
  match_none: (value, parent, name) => ({
    kind: 'match_none',
    boost: boostOf(expectObject(value, parent, name), name),
  }),
  match: parseMatch,
  match_phrase: parseMatchPhrase,
  match_phrase_prefix: parseMatchPhrasePrefix,
  multi_match: parseMultiMatch,
  bool: parseBool,
  term: parseTerm,
  terms: parseTerms,
  range: parseRange,
  exists: parseExists,
  ids: parseIds,
  prefix: parsePattern('prefix'),
  wildcard: parsePattern('wildcard'),
  constant_score: parseConstantScore,
  dis_max: parseDisMax,
  fuzzy: parseFuzzy,
  regexp: parseRegexpQuery,
  query_string: (value, parent, name) => parseQueryStringQuery(value, parent, name, MAX_NESTED_DEPTH),
  simple_query_string: (value, parent, name) =>
    parseSimpleQueryStringQuery(value, parent, name, MAX_NESTED_DEPTH),
  match_bool_prefix: parseMatchBoolPrefix,
  geo_distance: parseGeoDistance,
  geo_bounding_box: parseGeoBoundingBox,
  function_score: (value, parent, name) => parseFunctionScore(value, parent, name, parseQuery),
};
