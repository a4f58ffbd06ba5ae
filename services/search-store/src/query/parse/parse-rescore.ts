import { EsError } from '@acme/common';
import { locationOf } from './json-locations';
import type { Query } from '../query-ast';

/** One query rescorer (ES QueryRescorerBuilder) with its window. */
export interface Rescore {
  windowSize: number;
  query: Query;
  /** floats */
  queryWeight: number;
  rescoreQueryWeight: number;
  scoreMode: RescoreMode;
}

export type RescoreMode = 'total' | 'multiply' | 'avg' | 'max' | 'min';

/** RescorerBuilder.DEFAULT_WINDOW_SIZE */
export const DEFAULT_RESCORE_WINDOW = 10;
const MODES: readonly RescoreMode[] = ['total', 'multiply', 'avg', 'max', 'min'];

type Json = Record<string, unknown>;
type QueryParser = (body: unknown, parent?: Json, key?: string) => Query;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function at(parent: object, key: string): string {
  const l = locationOf(parent, key);
  return `[${l?.line ?? 1}:${l?.col ?? 1}]`;
}

function parsingError(reason: string, parent: object, key: string): EsError {
  const l = locationOf(parent, key);
  return new EsError('parsing_exception', reason, { metadata: { line: l?.line ?? 1, col: l?.col ?? 1 } });
}

function tokenOf(value: unknown): string {
  if (isObject(value)) return 'START_OBJECT';
  if (Array.isArray(value)) return 'START_ARRAY';
  if (typeof value === 'string') return 'VALUE_STRING';
  if (typeof value === 'number') return 'VALUE_NUMBER';
  if (value === null) return 'VALUE_NULL';
  return 'VALUE_BOOLEAN';
}

/** `rescore`: one rescorer or an array of them, as SearchSourceBuilder and RescorerBuilder read them. */
export function parseRescore(body: Json, parseQuery: QueryParser): Rescore[] {
  const value = body.rescore;
  if (isObject(value)) return [parseRescorer(value, parseQuery)];
  if (Array.isArray(value)) {
    return value.map((entry) => {
      if (!isObject(entry))
        throw parsingError(`Unknown key for a ${tokenOf(entry)} in [rescore].`, body, 'rescore');
      return parseRescorer(entry, parseQuery);
    });
  }
  throw parsingError(`Unknown key for a ${tokenOf(value)} in [rescore].`, body, 'rescore');
}

function parseRescorer(spec: Json, parseQuery: QueryParser): Rescore {
  let windowSize: number | undefined;
  let rescorer: Omit<Rescore, 'windowSize'> | undefined;
  for (const [key, v] of Object.entries(spec)) {
    if (isObject(v)) {
      if (rescorer) throw parsingError('you can either define [query] or [script], not both.', spec, key);
      if (key === 'script') {
        throw new EsError('illegal_argument_exception', '[script] rescorer is not supported by search-store');
      }
      if (key !== 'query') {
        // The rescorer registry's NamedObjectNotFoundException.
        throw new EsError('x_content_parse_exception', `${at(spec, key)} unknown field [${key}]`);
      }
      rescorer = parseQueryRescorer(v, parseQuery);
    } else if (Array.isArray(v)) {
      throw parsingError(`unexpected token [START_ARRAY] after [${key}]`, spec, key);
    } else if (key === 'window_size') {
      const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isInteger(n))
        throw new EsError(
          'x_content_parse_exception',
          `${at(spec, key)} [rescore] failed to parse field [window_size]`,
        );
      windowSize = n;
    } else {
      throw parsingError(`rescore doesn't support [${key}]`, spec, key);
    }
  }
  if (!rescorer) throw parsingError('missing rescore type', spec, Object.keys(spec).at(-1) ?? 'rescore');
  return { windowSize: windowSize ?? DEFAULT_RESCORE_WINDOW, ...rescorer };
}

function floatField(spec: Json, key: string): number {
  const v = spec[key];
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new EsError('x_content_parse_exception', `${at(spec, key)} [query] failed to parse field [${key}]`);
  return Math.fround(n);
}

function parseQueryRescorer(spec: Json, parseQuery: QueryParser): Omit<Rescore, 'windowSize'> {
  let query: Query | undefined;
  let queryWeight = 1;
  let rescoreQueryWeight = 1;
  let scoreMode: RescoreMode = 'total';
  for (const [key, v] of Object.entries(spec)) {
    if (key === 'rescore_query') query = parseQuery(v, spec, key);
    else if (key === 'query_weight') queryWeight = floatField(spec, key);
    else if (key === 'rescore_query_weight') rescoreQueryWeight = floatField(spec, key);
    else if (key === 'score_mode') {
      const mode = typeof v === 'string' ? (v.toLowerCase() as RescoreMode) : undefined;
      if (mode === undefined || !MODES.includes(mode)) {
        throw new EsError(
          'x_content_parse_exception',
          `${at(spec, key)} [query] failed to parse field [score_mode]`,
          {
            causedBy: { type: 'illegal_argument_exception', reason: `illegal score_mode [${String(v)}]` },
          },
        );
      }
      scoreMode = mode;
    } else throw new EsError('x_content_parse_exception', `${at(spec, key)} [query] unknown field [${key}]`);
  }
  if (!query) throw new EsError('illegal_argument_exception', 'rescore_query cannot be null');
  return { query, queryWeight, rescoreQueryWeight, scoreMode };
}
