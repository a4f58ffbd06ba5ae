import { EsError } from '@acme/common';
import type { Query } from '../query-ast';
import { parseKnn } from './parse-knn';

type Json = Record<string, unknown>;
type QueryParser = (body: unknown, parent?: Json, key?: string) => Query;
type Parser = (value: unknown, parent: Json, name: string) => Query;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function parsingError(reason: string): EsError {
  return new EsError('parsing_exception', reason, { metadata: { line: 1, col: 1 } });
}

function boostOf(spec: Json, name: string): number {
  const boost = spec.boost ?? 1;
  if (typeof boost !== 'number' || !Number.isFinite(boost))
    throw parsingError(`[${name}] failed to parse field [boost]`);
  return boost;
}

/** `script`: a string, or `{source, params, lang}` (painless only). */
function parseScript(value: unknown): { source: string; params: Record<string, unknown> } {
  if (typeof value === 'string') return { source: value, params: {} };
  if (!isObject(value) || typeof value.source !== 'string')
    throw parsingError('[script] must have a [source]');
  if (value.lang !== undefined && value.lang !== 'painless') {
    throw new EsError('illegal_argument_exception', `script_lang not supported [${String(value.lang)}]`);
  }
  const params = value.params === undefined ? {} : value.params;
  if (!isObject(params)) throw parsingError('[script] failed to parse field [params]');
  return { source: value.source, params };
}

/** Largest sparse_vector query_vector we take: each token is a term lookup. */
const MAX_SPARSE_TOKENS = 1024;

/** The query parsers of issue 22, for parse-query.ts's table. */
export function vectorQueryParsers(parseQuery: QueryParser): Record<string, Parser> {
  return {
    knn: (value) => parseKnn(value, parseQuery, 10),
    script_score: (value, _parent, name) => {
      if (!isObject(value)) throw parsingError(`[${name}] query malformed, no start_object after query name`);
      for (const key of Object.keys(value)) {
        if (!['query', 'script', 'min_score', 'boost', '_name'].includes(key)) {
          throw parsingError(`[script_score] query does not support [${key}]`);
        }
      }
      if (value.query === undefined) throw parsingError(`[script_score] requires 'query' field`);
      if (value.script === undefined) throw parsingError(`[script_score] requires 'script' field`);
      const minScore = value.min_score;
      if (minScore !== undefined && typeof minScore !== 'number')
        throw parsingError('[script_score] failed to parse field [min_score]');
      return {
        kind: 'script_score',
        query: parseQuery(value.query, value, 'query'),
        ...parseScript(value.script),
        minScore: minScore as number | undefined,
        boost: boostOf(value, name),
      };
    },
    sparse_vector: (value, _parent, name) => {
      if (!isObject(value)) throw parsingError(`[${name}] query malformed, no start_object after query name`);
      for (const key of Object.keys(value)) {
        if (key === 'inference_id' || key === 'query') {
          throw new EsError(
            'illegal_argument_exception',
            `[sparse_vector] [${key}] is not supported by search-store: send [query_vector]`,
          );
        }
        if (!['field', 'query_vector', 'prune', 'pruning_config', 'boost', '_name'].includes(key)) {
          throw parsingError(`[sparse_vector] unknown field [${key}]`);
        }
      }
      if (typeof value.field !== 'string')
        throw new EsError('illegal_argument_exception', '[sparse_vector] requires a [field]');
      if (!isObject(value.query_vector)) {
        throw new EsError(
          'illegal_argument_exception',
          '[sparse_vector] requires one of [query_vector] or [inference_id]',
        );
      }
      const entries = Object.entries(value.query_vector);
      if (entries.length > MAX_SPARSE_TOKENS) {
        throw new EsError(
          'illegal_argument_exception',
          `[sparse_vector] [query_vector] has more than [${MAX_SPARSE_TOKENS}] tokens`,
        );
      }
      const weights = new Map<string, number>();
      for (const [token, weight] of entries) {
        if (typeof weight !== 'number' || !Number.isFinite(weight)) {
          throw parsingError(`[sparse_vector] failed to parse field [query_vector]`);
        }
        weights.set(token, weight);
      }
      return { kind: 'sparse_vector', field: value.field, weights, boost: boostOf(value, name) };
    },
  };
}

/**
 * The `retriever` option (ES 8 "Retrievers"): `standard` (query, filter, min_score), `knn` and `rrf`
 * (retrievers, rank_constant 60, rank_window_size = size), as one query of our tree.
 */
export function parseRetriever(body: Json, size: number, parseQuery: QueryParser): Query {
  for (const key of ['query', 'knn', 'rank']) {
    if (body[key] !== undefined) {
      throw new EsError('illegal_argument_exception', `cannot specify [retriever] and [${key}]`);
    }
  }
  return retriever(body.retriever, size, parseQuery, 0);
}

const MAX_RETRIEVER_DEPTH = 10;

function retriever(value: unknown, size: number, parseQuery: QueryParser, depth: number): Query {
  if (depth > MAX_RETRIEVER_DEPTH) throw parsingError('[retriever] is nested too deeply');
  if (!isObject(value) || Object.keys(value).length !== 1) {
    throw parsingError('[retriever] must hold exactly one retriever');
  }
  const [name, spec] = Object.entries(value)[0]!;
  if (!isObject(spec)) throw parsingError(`[${name}] retriever malformed`);
  switch (name) {
    case 'standard': {
      const query =
        spec.query === undefined
          ? ({ kind: 'match_all', boost: 1 } as Query)
          : parseQuery(spec.query, spec, 'query');
      const filters =
        spec.filter === undefined
          ? []
          : (Array.isArray(spec.filter) ? spec.filter : [spec.filter]).map((f) =>
              parseQuery(f, spec, 'filter'),
            );
      return filters.length === 0
        ? query
        : { kind: 'bool', must: [query], should: [], filter: filters, mustNot: [], boost: 1 };
    }
    case 'knn': {
      if (spec.k === undefined)
        throw new EsError('illegal_argument_exception', '[knn] retriever requires [k]');
      if (spec.num_candidates === undefined) {
        throw new EsError('illegal_argument_exception', '[knn] retriever requires [num_candidates]');
      }
      return parseKnn(spec, parseQuery, size, 'knn');
    }
    case 'rrf': {
      if (!Array.isArray(spec.retrievers) || spec.retrievers.length === 0) {
        throw new EsError('illegal_argument_exception', '[rrf] requires [retrievers]');
      }
      const rankConstant = spec.rank_constant ?? 60;
      if (typeof rankConstant !== 'number' || !Number.isInteger(rankConstant) || rankConstant < 1) {
        throw new EsError(
          'illegal_argument_exception',
          `[rank_constant] must be greater or equal to [1] for [rrf]`,
        );
      }
      const window = spec.rank_window_size ?? Math.max(size, 10);
      if (typeof window !== 'number' || !Number.isInteger(window) || window < 1 || window > 10000) {
        throw new EsError(
          'illegal_argument_exception',
          `[rank_window_size] must be between [1] and [10000] for [rrf]`,
        );
      }
      if (window < size) {
        throw new EsError(
          'illegal_argument_exception',
          `[rank_window_size] must be greater than or equal to [size], got [${window}] and [${size}]`,
        );
      }
      return {
        kind: 'rrf',
        retrievers: spec.retrievers.map((r) => retriever(r, size, parseQuery, depth + 1)),
        rankConstant,
        rankWindowSize: window,
        boost: 1,
      };
    }
    default:
      throw parsingError(`unknown retriever [${name}]`);
  }
}
