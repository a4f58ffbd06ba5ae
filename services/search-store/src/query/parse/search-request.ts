import { EsError, newDictionary } from '@acme/common';
import { locationOf } from './json-locations';
import { MAX_NESTED_DEPTH, parseQuery } from './parse-query';
import { queryFromUrl } from './parse-query-string-query';
import { withTopLevelKnn } from './parse-knn';
import { parseTrackTotalHits } from './parse-track-total-hits';
import { parseRetriever } from './parse-vector-queries';
import type { Query } from '../query-ast';
import { parseGeoDistanceSort, type GeoDistanceSortKey } from './parse-geo-distance-sort';
import { parseIndicesBoost, type IndexBoost } from './parse-indices-boost';
import { parseRescore, type Rescore } from './parse-rescore';
import { parseCollapse, type CollapseRequest } from './parse-collapse';
import { parseFetchOptions, type FetchOptions } from './parse-fetch-options';
import { parseSuggest, type Suggestion } from './parse-suggest';
import { parseNestedSort, type NestedSort } from './parse-nested-sort';

/** A parsed `_search` request: the body merged with the URL parameters that override it. */
export interface SearchRequest extends Partial<FetchOptions> {
  query: Query;
  from: number;
  size: number;
  sort: SortKey[];
  source: SourceFilter;
  fields: { field: string; format?: string }[];
  trackTotalHits: number | boolean;
  trackScores: boolean;
  searchAfter?: unknown[];
  /**
   * Never on the wire: a scroll's later pages carry the count and max score of its first, so they
   * read only the page (ES ScrollContext keeps totalHits; counting every match per page made a full
   * scroll quadratic).
   */
  knownTotal?: { total: number; maxScore: number | null };
  explain: boolean;
  highlight?: HighlightRequest;
  /** Filters the hits after aggregations were computed (ES `post_filter`). */
  postFilter?: Query;
  aggregations?: Record<string, unknown>;
  runtimeMappings?: Record<string, unknown>;
  restTotalHitsAsInt: boolean;
  minScore?: number;
  /** `version: true` adds `_version` to hits; `seq_no_primary_term: true` adds `_seq_no`/`_primary_term`. */
  version: boolean;
  seqNoPrimaryTerm: boolean;
  /** `indices_boost` as sent; search/indices-boost.ts resolves it into `indexBoosts` (by index id). */
  indicesBoost?: IndexBoost[];
  indexBoosts?: Map<string, number>;
  /** `include_named_queries_score=true`: matched_queries as an object of scores. */
  includeNamedQueriesScore?: boolean;
  /** `rescore`, applied by search/rescore-docs.ts. */
  rescore?: Rescore[];
  /** `collapse`, applied by search/collapse-groups.ts and search/hits/collapse-inner-hits.ts. */
  collapse?: CollapseRequest;
  /** The `suggest` section (parse-suggest.ts). */
  suggest?: Suggestion[];
}

export type SortKey =
  | { kind: 'score'; order: 'asc' | 'desc' }
  | { kind: 'doc'; order: 'asc' | 'desc' }
  /** ES `_shard_doc`, a point in time's tiebreaker: the index's place in the search, then the document. */
  | { kind: 'shard_doc'; order: 'asc' | 'desc' }
  | {
      kind: 'field';
      field: string;
      order: 'asc' | 'desc';
      /** `_last` (default), `_first`, or a value that stands in for documents without one. */
      missing: '_last' | '_first' | { value: string | number };
      unmappedType?: string;
      mode?: 'min' | 'max' | 'sum' | 'avg' | 'median';
      nested?: NestedSort;
    }
  | GeoDistanceSortKey;

export type SourceFilter = { enabled: false } | { enabled: true; includes: string[]; excludes: string[] };

export interface HighlightRequest {
  fields: Record<
    string,
    { preTags?: string[]; postTags?: string[]; fragmentSize?: number; numberOfFragments?: number }
  >;
  preTags: string[];
  postTags: string[];
  fragmentSize: number;
  numberOfFragments: number;
}

type Json = Record<string, unknown>;

const BODY_KEYS = new Set([
  'query',
  'from',
  'size',
  'sort',
  '_source',
  'fields',
  'docvalue_fields',
  'track_total_hits',
  'track_scores',
  'search_after',
  'explain',
  'highlight',
  'aggs',
  'aggregations',
  'runtime_mappings',
  'post_filter',
  'min_score',
  'version',
  'seq_no_primary_term',
  'stored_fields',
  'timeout',
  'profile',
  'stats',
  'ext',
  // Read by search/contexts/point-in-time-search.ts before the rest of the body.
  'pit',
  'knn',
  'retriever',
  'indices_boost',
  'rescore',
  'collapse',
  // parse-fetch-options.ts
  'script_fields',
  'slice',
  'terminate_after',
  'suggest',
]);

/**
 * Known Elasticsearch search features that would change the answer: refused rather than ignored.
 * `rank` + `sub_searches` is ES 8.8–8.13's technical-preview RRF syntax, replaced by `retriever`
 * (which we take, query/compile/compile-rrf.ts).
 */
const UNSUPPORTED_KEYS = new Set(['rank', 'sub_searches']);

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function validation(message: string): EsError {
  return new EsError('action_request_validation_exception', `Validation Failed: 1: ${message};`);
}

function unknownKey(body: Json, key: string): EsError {
  const value = body[key];
  const token = isObject(value)
    ? 'START_OBJECT'
    : Array.isArray(value)
      ? 'START_ARRAY'
      : typeof value === 'string'
        ? 'VALUE_STRING'
        : typeof value === 'number'
          ? 'VALUE_NUMBER'
          : 'VALUE_BOOLEAN';
  const at = locationOf(body, key);
  return new EsError('parsing_exception', `Unknown key for a ${token} in [${key}].`, {
    metadata: { line: at?.line ?? 1, col: at?.col ?? 1 },
  });
}

function integer(value: unknown, name: string, body?: Json): number {
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    const at = body ? locationOf(body, name) : undefined;
    throw new EsError(
      'x_content_parse_exception',
      `[${at?.line ?? 1}:${at?.col ?? 1}] [search] failed to parse field [${name}]`,
    );
  }
  return n;
}

function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return [];
}

export function parseSourceFilter(value: unknown): SourceFilter {
  if (value === undefined || value === true || value === 'true')
    return { enabled: true, includes: [], excludes: [] };
  if (value === false || value === 'false') return { enabled: false };
  if (typeof value === 'string' || Array.isArray(value))
    return { enabled: true, includes: list(value), excludes: [] };
  if (isObject(value)) {
    return {
      enabled: true,
      includes: list(value.includes ?? value.include),
      excludes: list(value.excludes ?? value.exclude),
    };
  }
  throw new EsError(
    'parsing_exception',
    `Expected one of [VALUE_BOOLEAN, VALUE_STRING, START_ARRAY, START_OBJECT] for [_source]`,
    {
      metadata: { line: 1, col: 1 },
    },
  );
}

function parseSortKey(spec: unknown): SortKey {
  if (typeof spec === 'string') {
    const [name, order] = spec.split(':');
    return sortKeyFor(name!, order === 'asc' || order === 'desc' ? { order } : {});
  }
  if (isObject(spec)) {
    const [name, options] = Object.entries(spec)[0] ?? [];
    if (name === undefined)
      throw new EsError('parsing_exception', 'malformed sort format, no sort field', {
        metadata: { line: 1, col: 1 },
      });
    if (typeof options === 'string') return sortKeyFor(name, { order: options });
    if (isObject(options)) return sortKeyFor(name, options);
  }
  throw new EsError(
    'parsing_exception',
    'malformed sort format, within the sort array, an object, or an actual string are allowed',
    {
      metadata: { line: 1, col: 1 },
    },
  );
}

function sortKeyFor(name: string, options: Json): SortKey {
  const order = options.order === undefined ? undefined : String(options.order).toLowerCase();
  if (order !== undefined && order !== 'asc' && order !== 'desc') {
    throw new EsError('illegal_argument_exception', `Unknown SortOrder [${order}]`);
  }
  if (name === '_score') return { kind: 'score', order: order ?? 'desc' };
  if (name === '_doc') return { kind: 'doc', order: order ?? 'asc' };
  if (name === '_shard_doc') return { kind: 'shard_doc', order: order ?? 'asc' };
  if (name === '_geo_distance') return parseGeoDistanceSort(options);
  const mode =
    options.mode === 'min' || options.mode === 'max'
      ? options.mode
      : options.nested !== undefined &&
          (options.mode === 'sum' || options.mode === 'avg' || options.mode === 'median')
        ? options.mode
        : undefined;
  return {
    kind: 'field',
    field: name,
    order: order ?? 'asc',
    missing:
      options.missing === '_first' || options.missing === '_last' || options.missing === undefined
        ? ((options.missing as '_first' | '_last' | undefined) ?? '_last')
        : typeof options.missing === 'number' || typeof options.missing === 'string'
          ? { value: options.missing }
          : '_last',
    unmappedType: typeof options.unmapped_type === 'string' ? options.unmapped_type : undefined,
    mode,
    ...(options.nested === undefined ? {} : { nested: parseNestedSort(options.nested) }),
  };
}

function parseHighlight(value: unknown): HighlightRequest {
  if (!isObject(value))
    throw new EsError('parsing_exception', '[highlight] expected an object', {
      metadata: { line: 1, col: 1 },
    });
  const tags = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map(String) : undefined);
  const fieldsSpec = value.fields;
  const entries: [string, unknown][] = Array.isArray(fieldsSpec)
    ? fieldsSpec.flatMap((f) => (isObject(f) ? Object.entries(f) : []))
    : isObject(fieldsSpec)
      ? Object.entries(fieldsSpec)
      : [];
  const fields: HighlightRequest['fields'] = newDictionary(); // keyed by field name or pattern
  for (const [name, spec] of entries) {
    const o = isObject(spec) ? spec : {};
    fields[name] = {
      preTags: tags(o.pre_tags),
      postTags: tags(o.post_tags),
      fragmentSize: typeof o.fragment_size === 'number' ? o.fragment_size : undefined,
      numberOfFragments: typeof o.number_of_fragments === 'number' ? o.number_of_fragments : undefined,
    };
  }
  return {
    fields,
    preTags: tags(value.pre_tags) ?? ['<em>'],
    postTags: tags(value.post_tags) ?? ['</em>'],
    fragmentSize: typeof value.fragment_size === 'number' ? value.fragment_size : 100,
    numberOfFragments: typeof value.number_of_fragments === 'number' ? value.number_of_fragments : 5,
  };
}

/** Parses the body and the URL parameters (`size`, `from`, `sort`, `_source*`, `q`, `track_total_hits`, …). */
export function parseSearchRequest(
  body: unknown,
  params: Record<string, string | undefined>,
  countOnly = false,
): SearchRequest {
  if (body !== undefined && body !== null && !isObject(body)) {
    throw new EsError('parsing_exception', 'request body or source parameter is required', {
      metadata: { line: 1, col: 1 },
    });
  }
  const b: Json = body ?? {};
  for (const key of Object.keys(b)) {
    if (!countOnly && UNSUPPORTED_KEYS.has(key)) {
      throw new EsError('illegal_argument_exception', `[${key}] is not supported by search-store`);
    }
    if (countOnly && key !== 'query') {
      // RestActions.getQueryContent: the count body holds only `query`.
      const at = locationOf(b, key);
      throw new EsError('parsing_exception', `request does not support [${key}]`, {
        metadata: { line: at?.line ?? 1, col: at?.col ?? 1 },
      });
    }
    if (!countOnly && !BODY_KEYS.has(key)) throw unknownKey(b, key);
  }
  let query: Query =
    b.query === undefined ? { kind: 'match_all', boost: 1 } : parseQuery(b.query, b, 'query');
  if (params.q !== undefined) query = queryFromUrl(params, MAX_NESTED_DEPTH);
  const from =
    params.from !== undefined
      ? integer(params.from, 'from')
      : b.from === undefined
        ? 0
        : integer(b.from, 'from', b);
  const size =
    params.size !== undefined
      ? integer(params.size, 'size')
      : b.size === undefined
        ? 10
        : integer(b.size, 'size', b);
  if (size < 0) throw validation(`[size] parameter cannot be negative, found [${size}]`);
  query =
    b.retriever !== undefined
      ? parseRetriever(b, size, parseQuery)
      : withTopLevelKnn(b, query, size, parseQuery);
  if (from < 0) throw validation(`[from] parameter cannot be negative, found [${from}]`);
  const sortSpec = params.sort !== undefined ? list(params.sort) : b.sort;
  const sort =
    sortSpec === undefined ? [] : (Array.isArray(sortSpec) ? sortSpec : [sortSpec]).map(parseSortKey);
  let source = parseSourceFilter(params._source ?? b._source);
  if (params._source_includes !== undefined || params._source_excludes !== undefined) {
    source = {
      enabled: true,
      includes: list(params._source_includes ?? (source.enabled ? source.includes : [])),
      excludes: list(params._source_excludes ?? (source.enabled ? source.excludes : [])),
    };
  }
  // docvalue_fields: parse-fetch-options.ts (they answer from doc values, with formats).
  const fieldsSpec = Array.isArray(b.fields) ? b.fields : [];
  const fields = fieldsSpec.map((f) =>
    isObject(f)
      ? { field: String(f.field), format: typeof f.format === 'string' ? f.format : undefined }
      : { field: String(f) },
  );
  const tth = params.track_total_hits ?? b.track_total_hits;
  const trackTotalHits = parseTrackTotalHits(tth, params.rest_total_hits_as_int === 'true', (v) =>
    integer(v, 'track_total_hits'),
  );
  if (b.pit === undefined && sort.some((key) => key.kind === 'shard_doc')) {
    throw validation('[_shard_doc] sort field cannot be used without [point in time]');
  }
  const searchAfter = b.search_after;
  if (searchAfter !== undefined && !Array.isArray(searchAfter)) throw unknownKey(b, 'search_after');
  if (searchAfter !== undefined && from > 0) {
    throw validation('[from] parameter must be set to 0 when [search_after] is used');
  }
  return {
    query,
    from,
    size,
    sort,
    source,
    fields,
    trackTotalHits,
    trackScores: b.track_scores === true,
    searchAfter,
    explain: params.explain === 'true' || b.explain === true,
    highlight: b.highlight === undefined ? undefined : parseHighlight(b.highlight),
    postFilter: b.post_filter === undefined ? undefined : parseQuery(b.post_filter, b, 'post_filter'),
    aggregations: isObject(b.aggs) ? b.aggs : isObject(b.aggregations) ? b.aggregations : undefined,
    runtimeMappings: isObject(b.runtime_mappings) ? b.runtime_mappings : undefined,
    restTotalHitsAsInt: params.rest_total_hits_as_int === 'true',
    minScore: typeof b.min_score === 'number' ? b.min_score : undefined,
    version: params.version === 'true' || b.version === true,
    seqNoPrimaryTerm: params.seq_no_primary_term === 'true' || b.seq_no_primary_term === true,
    ...(b.indices_boost === undefined ? {} : { indicesBoost: parseIndicesBoost(b) }),
    ...(params.include_named_queries_score === 'true' ? { includeNamedQueriesScore: true } : {}),
    ...(b.rescore === undefined ? {} : { rescore: parseRescore(b, parseQuery) }),
    ...(b.collapse === undefined ? {} : { collapse: parseCollapse(b) }),
    ...(countOnly ? {} : parseFetchOptions(b, params)),
    suggest: b.suggest === undefined ? undefined : parseSuggest(b.suggest),
  };
}
