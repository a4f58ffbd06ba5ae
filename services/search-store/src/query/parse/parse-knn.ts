import { EsError } from '@acme/common';
import type { Query } from '../query-ast';

type Json = Record<string, unknown>;
type QueryParser = (body: unknown, parent?: Json, key?: string) => Query;

/** ES's bound on num_candidates (KnnSearchBuilder.NUM_CANDS_LIMIT). */
export const MAX_NUM_CANDIDATES = 10000;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function illegal(reason: string): EsError {
  return new EsError('illegal_argument_exception', reason);
}

function parseError(what: string, reason: string): EsError {
  return new EsError('parsing_exception', `[${what}] ${reason}`, { metadata: { line: 1, col: 1 } });
}

function optionalInteger(spec: Json, key: string, what: string): number | undefined {
  const v = spec[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw parseError(what, `failed to parse field [${key}]`);
  return v;
}

/** A query vector: finite numbers only (ES refuses NaN/Infinity as JSON has no such tokens; strings here). */
export function parseQueryVector(value: unknown, what: string): number[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw illegal(`[${what}] requires a non-empty [query_vector]`);
  }
  for (const v of value) {
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw parseError(what, 'failed to parse field [query_vector]');
  }
  return value as number[];
}

const KNN_KEYS = new Set([
  'field',
  'query_vector',
  'k',
  'num_candidates',
  'filter',
  'similarity',
  'boost',
  '_name',
]);

/**
 * One knn object, the top-level option's or the knn query's (ES "k-nearest neighbor (kNN) search"):
 * `k` defaults to `size` (top level) and `num_candidates` to min(1.5·k, 10000), as since ES 8.13;
 * the bounds and their messages are KnnSearchBuilder's.
 */
export function parseKnn(
  value: unknown,
  parseQuery: QueryParser,
  defaultK: number,
  what = 'knn',
): Extract<Query, { kind: 'knn' }> {
  if (!isObject(value)) throw parseError(what, 'query malformed, no start_object after query name');
  for (const key of Object.keys(value)) {
    if (!KNN_KEYS.has(key)) throw parseError(what, `unknown field [${key}]`);
  }
  if (typeof value.field !== 'string') throw illegal(`[${what}] requires field [field] to be configured`);
  const queryVector = parseQueryVector(value.query_vector, what);
  const givenK = optionalInteger(value, 'k', what);
  const givenCandidates = optionalInteger(value, 'num_candidates', what);
  const k = givenK ?? (givenCandidates !== undefined ? Math.min(defaultK, givenCandidates) : defaultK);
  if (givenK === undefined && givenCandidates !== undefined && givenCandidates < defaultK) {
    throw illegal(`[num_candidates] cannot be less than [k]`);
  }
  if (k < 1) throw illegal(`[k] must be greater than 0`);
  const numCandidates = givenCandidates ?? Math.min(Math.max(Math.round(1.5 * k), k), MAX_NUM_CANDIDATES);
  if (numCandidates > MAX_NUM_CANDIDATES)
    throw illegal(`[num_candidates] cannot exceed [${MAX_NUM_CANDIDATES}]`);
  if (numCandidates < 1) throw illegal(`[num_candidates] must be greater than 0`);
  if (numCandidates < k) throw illegal(`[num_candidates] cannot be less than [k]`);
  const filterSpec = value.filter;
  const filter =
    filterSpec === undefined
      ? []
      : (Array.isArray(filterSpec) ? filterSpec : [filterSpec]).map((f) => parseQuery(f, value, 'filter'));
  const similarity = value.similarity;
  if (similarity !== undefined && (typeof similarity !== 'number' || !Number.isFinite(similarity))) {
    throw parseError(what, 'failed to parse field [similarity]');
  }
  const boost = value.boost ?? 1;
  if (typeof boost !== 'number' || !Number.isFinite(boost))
    throw parseError(what, 'failed to parse field [boost]');
  return {
    kind: 'knn',
    field: value.field,
    queryVector,
    k,
    numCandidates,
    filter,
    similarity: similarity as number | undefined,
    boost,
  };
}

/**
 * The top-level `knn` option (an object or an array of them) folded into the query: alone, its hits
 * are the union of the clauses' k nearest; beside a `query`, each document's score is the sum of its
 * boosted query and knn scores over the union (ES "Combine approximate kNN with other features"),
 * which is a bool of should clauses.
 */
export function withTopLevelKnn(body: Json, query: Query, size: number, parseQuery: QueryParser): Query {
  const spec = body.knn;
  if (spec === undefined) return query;
  const clauses = (Array.isArray(spec) ? spec : [spec]).map((s) => parseKnn(s, parseQuery, size));
  if (clauses.length === 0) return query;
  const should: Query[] = body.query === undefined ? clauses : [query, ...clauses];
  if (should.length === 1) return should[0]!;
  return { kind: 'bool', must: [], should, filter: [], mustNot: [], boost: 1 };
}
