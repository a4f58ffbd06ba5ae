import { EsError } from '@acme/common';
import type { Query } from '../query-ast';
import type { NestedInnerHits, NestedScoreMode } from '../nested-query';
import { locationOf } from './json-locations';

type Json = Record<string, unknown>;
type QueryParser = (body: unknown, parent?: Json, key?: string) => Query;
type Parser = (value: unknown, parent: Json, name: string) => Query;

const KEYS = ['path', 'query', 'score_mode', 'ignore_unmapped', 'inner_hits', 'boost', '_name'];
const SCORE_MODES: readonly NestedScoreMode[] = ['avg', 'sum', 'max', 'min', 'none'];
/** ES InnerHitBuilder's fields (the fetch options of a search body, plus name/from/size). */
const INNER_HIT_KEYS = [
  'name',
  'from',
  'size',
  'sort',
  '_source',
  'highlight',
  'explain',
  'version',
  'seq_no_primary_term',
  'track_scores',
  'docvalue_fields',
  'fields',
  'stored_fields',
  'script_fields',
  'ignore_unmapped',
];

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function parsingError(reason: string, parent: Json, key: string): EsError {
  const at = locationOf(parent, key);
  return new EsError('parsing_exception', reason, { metadata: { line: at?.line ?? 1, col: at?.col ?? 1 } });
}

function xContentError(reason: string, parent: Json, key: string): EsError {
  const at = locationOf(parent, key);
  return new EsError('x_content_parse_exception', `[${at?.line ?? 1}:${at?.col ?? 1}] ${reason}`);
}

/** ES NestedQueryBuilder.parseScoreMode ("total" is ES's old name of sum). */
function parseScoreMode(value: unknown): NestedScoreMode {
  const text = String(value);
  if ((SCORE_MODES as readonly string[]).includes(text)) return text as NestedScoreMode;
  throw new EsError('illegal_argument_exception', `illegal score_mode for nested query [${text}]`);
}

function intOf(spec: Json, key: string, fallback: number): number {
  const value = spec[key];
  if (value === undefined) return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw xContentError(`[inner_hits] failed to parse field [${key}]`, spec, key);
  return n;
}

/** ES InnerHitBuilder: from 0, size 3, the name defaults to the nested path. */
function parseInnerHits(value: unknown, path: string, parent: Json): NestedInnerHits {
  if (!isObject(value)) throw xContentError('[nested] inner_hits must be an object', parent, 'inner_hits');
  for (const key of Object.keys(value)) {
    if (!INNER_HIT_KEYS.includes(key)) throw xContentError(`[inner_hits] unknown field [${key}]`, value, key);
  }
  const name = value.name === undefined ? path : String(value.name);
  return { name, from: intOf(value, 'from', 0), size: intOf(value, 'size', 3), spec: value };
}

/** The `nested` query's parser, for parse-query.ts's table. */
export function nestedQueryParsers(parseQuery: QueryParser): Record<string, Parser> {
  return {
    nested: (value, parent, name) => {
      if (!isObject(value))
        throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
      for (const key of Object.keys(value)) {
        if (!KEYS.includes(key)) throw parsingError(`[nested] query does not support [${key}]`, value, key);
      }
      if (value.query === undefined) throw parsingError("[nested] requires 'query' field", parent, name);
      if (value.path === undefined) throw parsingError("[nested] requires 'path' field", parent, name);
      const path = String(value.path);
      const boost = value.boost === undefined ? 1 : Number(value.boost);
      if (!Number.isFinite(boost))
        throw parsingError('[nested] failed to parse field [boost]', value, 'boost');
      const query: Query = {
        kind: 'nested',
        path,
        query: parseQuery(value.query, value, 'query'),
        scoreMode: value.score_mode === undefined ? 'avg' : parseScoreMode(value.score_mode),
        ignoreUnmapped: value.ignore_unmapped === true || value.ignore_unmapped === 'true',
        boost,
      };
      if (value.inner_hits !== undefined) query.innerHits = parseInnerHits(value.inner_hits, path, value);
      return query;
    },
  };
}
