import { EsError } from '@acme/common';
import { locationOf } from './json-locations';
import { parseFuzziness } from './parse-fuzziness';
import { parseQueryStringSyntax } from './parse-query-string';
import { SQS_FLAGS, parseSimpleQueryStringSyntax, type SqsFlag } from './parse-simple-query-string';
import type { Query } from '../query-ast';
import {
  isSyntaxError,
  type MultiMatchType,
  type QsNode,
  type QueryStringOptions,
} from '../query-string-ast';

/**
 * The DSL of `query_string`, `simple_query_string` and `match_bool_prefix` (ES 8 reference, "Query
 * string query", "Simple query string query", "Match boolean prefix query"): the options and the
 * parsed syntax tree. A query_string syntax error is kept in the tree and raised in the query phase,
 * where ES raises it (query_shard_exception "Failed to parse query […]"); bad options are parse-time
 * parsing_exceptions like every other query's.
 */
type Json = Record<string, unknown>;

/** Our bound on one query string (ES has none): parsing is linear, the clauses it yields are not free. */
export const MAX_QUERY_STRING_CHARS = 32_768;

function parsingError(reason: string, parent: object, key: string): EsError {
  const at = locationOf(parent, key);
  return new EsError('parsing_exception', reason, { metadata: { line: at?.line ?? 1, col: at?.col ?? 1 } });
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function str(spec: Json, key: string, name: string): string | undefined {
  const v = spec[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw parsingError(`[${name}] failed to parse field [${key}]`, spec, key);
}

function num(spec: Json, key: string, name: string): number | undefined {
  const v = spec[key];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw parsingError(`[${name}] failed to parse field [${key}]`, spec, key);
  return n;
}

function bool(spec: Json, key: string, name: string): boolean | undefined {
  const v = spec[key];
  if (v === undefined || v === null) return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw parsingError(`[${name}] failed to parse field [${key}]`, spec, key);
}

function operator(spec: Json, key: string, name: string): 'or' | 'and' {
  const v = str(spec, key, name);
  if (v === undefined) return 'or';
  const op = v.toLowerCase();
  if (op !== 'or' && op !== 'and')
    throw parsingError(`[${name}] query does not support [${key}] [${v}]`, spec, key);
  return op;
}

/** `["title^2", "body"]` (or one string): ES's QueryParserHelper.parseFieldsAndWeights. */
export function parseFieldsAndWeights(
  value: unknown,
  spec: Json,
  name: string,
): { field: string; boost: number }[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => {
    if (typeof item !== 'string')
      throw parsingError(`[${name}] failed to parse field [fields]`, spec, 'fields');
    const caret = item.lastIndexOf('^');
    if (caret < 0) return { field: item, boost: 1 };
    const boost = Number(item.slice(caret + 1));
    if (!Number.isFinite(boost))
      throw parsingError(`[${name}] failed to parse field [fields]`, spec, 'fields');
    return { field: item.slice(0, caret), boost };
  });
}

const TYPES: readonly MultiMatchType[] = [
  'best_fields',
  'most_fields',
  'cross_fields',
  'phrase',
  'phrase_prefix',
  'bool_prefix',
];

function checkKeys(spec: Json, allowed: readonly string[], message: (key: string) => string): void {
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) throw parsingError(message(key), spec, key);
  }
}

/** A `term~N`'s edit distance as ES's Fuzziness.fromString reads it (400 on a bad one). */
function checkFuzzyEdits(node: QsNode | undefined): void {
  const stack: QsNode[] = node ? [node] : [];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.t === 'fuzzy' && n.edits !== undefined && n.edits !== '') n.edits = parseFuzziness(n.edits);
    if (n.t === 'bool') for (const c of n.clauses) stack.push(c.node);
    if (n.t === 'boost') stack.push(n.node);
  }
}

const QS_KEYS = [
  'query',
  'default_field',
  'fields',
  'type',
  'tie_breaker',
  'default_operator',
  'analyzer',
  'quote_analyzer',
  'allow_leading_wildcard',
  'enable_position_increments',
  'fuzziness',
  'fuzzy_prefix_length',
  'fuzzy_max_expansions',
  'fuzzy_rewrite',
  'fuzzy_transpositions',
  'phrase_slop',
  'analyze_wildcard',
  'time_zone',
  'quote_field_suffix',
  'auto_generate_synonyms_phrase_query',
  'max_determinized_states',
  'lenient',
  'minimum_should_match',
  'rewrite',
  'escape',
  'boost',
  '_name',
];

export function parseQueryStringQuery(value: unknown, parent: Json, name: string, maxDepth: number): Query {
  if (!isObject(value))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
  const spec = value;
  checkKeys(spec, QS_KEYS, (key) => `[${name}] query does not support [${key}]`);
  const query = str(spec, 'query', name);
  if (query === undefined) throw parsingError(`[${name}] must be provided with a [query]`, parent, name);
  const common = commonOptions(spec, name, query);
  const type = str(spec, 'type', name) ?? 'best_fields';
  if (!TYPES.includes(type as MultiMatchType))
    throw parsingError(`[${name}] failed to parse [type] [${type}]: unknown type`, spec, 'type');
  const defaultField = str(spec, 'default_field', name);
  if (defaultField !== undefined && common.fields !== undefined)
    throw parsingError(
      `[${name}] cannot use [fields] parameter in conjunction with [default_field]`,
      spec,
      'fields',
    );
  const phraseSlop = num(spec, 'phrase_slop', name) ?? 0;
  const tree =
    parseQueryStringSyntax(query, {
      defaultOperator: common.defaultOperator,
      allowLeadingWildcard: bool(spec, 'allow_leading_wildcard', name) ?? true,
      maxDepth,
    }) ?? ({ t: 'bool', clauses: [] } as QsNode);
  if (!isSyntaxError(tree)) checkFuzzyEdits(tree);
  return {
    kind: 'query_string',
    ...common,
    tree,
    defaultField,
    quoteAnalyzer: str(spec, 'quote_analyzer', name),
    phraseSlop,
    type: type as MultiMatchType,
    tieBreaker: num(spec, 'tie_breaker', name),
    maxDeterminizedStates: num(spec, 'max_determinized_states', name),
  };
}

function commonOptions(
  spec: Json,
  name: string,
  query: string,
): Omit<QueryStringOptions, 'tree' | 'type' | 'phraseSlop'> {
  if (query.length > MAX_QUERY_STRING_CHARS)
    throw parsingError(
      `[${name}] query is longer than the limit of [${MAX_QUERY_STRING_CHARS}] characters`,
      spec,
      'query',
    );
  return {
    query,
    fields: spec.fields === undefined ? undefined : parseFieldsAndWeights(spec.fields, spec, name),
    defaultOperator: operator(spec, 'default_operator', name),
    analyzer: str(spec, 'analyzer', name),
    quoteFieldSuffix: str(spec, 'quote_field_suffix', name),
    analyzeWildcard: bool(spec, 'analyze_wildcard', name) ?? false,
    lenient: bool(spec, 'lenient', name),
    minimumShouldMatch: str(spec, 'minimum_should_match', name),
    fuzzy: {
      fuzziness: spec.fuzziness === undefined ? 'AUTO' : parseFuzziness(spec.fuzziness),
      prefixLength: num(spec, 'fuzzy_prefix_length', name) ?? 0,
      maxExpansions: num(spec, 'fuzzy_max_expansions', name) ?? 50,
      transpositions: bool(spec, 'fuzzy_transpositions', name) ?? true,
      rewrite: str(spec, 'fuzzy_rewrite', name),
    },
    boost: num(spec, 'boost', name) ?? 1,
  };
}

const SQS_KEYS = [
  'query',
  'fields',
  'analyzer',
  'default_operator',
  'flags',
  'lenient',
  'analyze_wildcard',
  'minimum_should_match',
  'quote_field_suffix',
  'auto_generate_synonyms_phrase_query',
  'fuzzy_prefix_length',
  'fuzzy_max_expansions',
  'fuzzy_transpositions',
  'boost',
  '_name',
];

/** `flags`: `"AND|OR|PREFIX"` (case-insensitive names, SimpleQueryStringFlag) or the bits as a number. */
function parseFlags(spec: Json, name: string): number {
  const v = spec.flags;
  if (v === undefined || v === null) return SQS_FLAGS.ALL;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v !== 'string') throw parsingError(`[${name}] failed to parse field [flags]`, spec, 'flags');
  if (/^-?\d+$/.test(v.trim())) return Number(v.trim());
  let flags = 0;
  for (const part of v.split('|')) {
    const flag = part.trim().toUpperCase();
    if (flag === '') continue;
    if (!Object.hasOwn(SQS_FLAGS, flag))
      throw new EsError('illegal_argument_exception', `Unknown ${name} flag [${part.trim()}]`);
    const bits = SQS_FLAGS[flag as SqsFlag];
    if (bits === SQS_FLAGS.ALL) return SQS_FLAGS.ALL;
    flags |= bits;
  }
  return flags;
}

export function parseSimpleQueryStringQuery(
  value: unknown,
  parent: Json,
  name: string,
  maxDepth: number,
): Query {
  if (!isObject(value))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
  const spec = value;
  checkKeys(spec, SQS_KEYS, (key) => `[${name}] unsupported field [${key}]`);
  const query = str(spec, 'query', name);
  if (query === undefined) throw parsingError(`[${name}] query text missing`, parent, name);
  const common = commonOptions(spec, name, query);
  const tree =
    parseSimpleQueryStringSyntax(query, {
      flags: parseFlags(spec, name),
      defaultOperator: common.defaultOperator,
      maxDepth,
    }) ?? ({ t: 'bool', clauses: [] } as QsNode);
  // simple_query_string scores a term over several fields as most_fields (DisjunctionMaxQuery, tie 1).
  return { kind: 'simple_query_string', ...common, tree, phraseSlop: 0, type: 'most_fields', tieBreaker: 1 };
}

const MBP_KEYS = [
  'query',
  'analyzer',
  'operator',
  'minimum_should_match',
  'boost',
  '_name',
  'fuzziness',
  'prefix_length',
  'max_expansions',
  'fuzzy_transpositions',
  'fuzzy_rewrite',
];

/** match_bool_prefix: `{field: text}` or `{field: {query, operator, minimum_should_match, analyzer}}`. */
export function parseMatchBoolPrefix(value: unknown, parent: Json, name: string): Query {
  if (!isObject(value))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
  const fields = Object.keys(value).filter((k) => k !== 'boost' && k !== '_name');
  if (fields.length !== 1)
    throw parsingError(
      fields.length === 0
        ? `[${name}] query doesn't support empty field`
        : `[${name}] query doesn't support multiple fields, found [${fields[0]}] and [${fields[1]}]`,
      value,
      fields[1] ?? name,
    );
  const field = fields[0]!;
  const spec = value[field];
  if (!isObject(spec)) {
    const text = str(value, field, name)!;
    return { kind: 'match_bool_prefix', field, query: text, operator: 'or', boost: 1 };
  }
  checkKeys(spec, MBP_KEYS, (key) => `[${name}] query does not support [${key}]`);
  const fuzziness = spec.fuzziness;
  if (fuzziness !== undefined && fuzziness !== 0 && fuzziness !== '0')
    throw parsingError(
      `[${name}] fuzziness [${String(fuzziness)}] is not supported by search-store`,
      spec,
      'fuzziness',
    );
  const text = str(spec, 'query', name);
  if (text === undefined) throw parsingError(`[${name}] requires query value`, value, field);
  return {
    kind: 'match_bool_prefix',
    field,
    query: text,
    operator: operator(spec, 'operator', name),
    minimumShouldMatch: str(spec, 'minimum_should_match', name),
    analyzer: str(spec, 'analyzer', name),
    boost: num(spec, 'boost', name) ?? 1,
  };
}

/**
 * The `q` URL parameter of `_search`/`_count` (RestSearchAction): a query_string with `df`,
 * `default_operator`, `analyzer`, `analyze_wildcard` and `lenient` from the URL.
 */
export function queryFromUrl(params: Record<string, string | undefined>, maxDepth: number): Query {
  const spec: Json = { query: params.q };
  if (params.df !== undefined) spec.default_field = params.df;
  if (params.default_operator !== undefined) spec.default_operator = params.default_operator;
  if (params.analyzer !== undefined) spec.analyzer = params.analyzer;
  if (params.analyze_wildcard !== undefined) spec.analyze_wildcard = params.analyze_wildcard;
  if (params.lenient !== undefined) spec.lenient = params.lenient;
  return parseQueryStringQuery(spec, { query_string: spec }, 'query_string', maxDepth);
}
