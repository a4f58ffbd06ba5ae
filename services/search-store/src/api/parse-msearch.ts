import { availableParallelism } from 'node:os';
import { EsError } from '@acme/common';
import type { Line } from '../http/read-lines';
import { parseJsonText } from '../http/parse-json-text';
import { parseJsonWithLocations } from '../query/parse/json-locations';
import { parseSearchRequest } from '../query/parse/search-request';
import type { MultiSearchItem } from '../search/multi-search';

/**
 * The most searches one `_msearch` may carry. Elasticsearch has no such count (only
 * http.max_content_length), but `{}\n{}\n` is six bytes and each one a full search: a bound keeps one
 * request from occupying the store for minutes (documented in DESIGN.md).
 */
export const MAX_SEARCHES_PER_REQUEST = 1000;

/**
 * Elasticsearch's default `max_concurrent_searches` (TransportMultiSearchAction): the search thread
 * pool of one data node, `processors * 3 / 2 + 1`, at most 10. It is also the ceiling here: a higher
 * value would only let one request take more of the shared Postgres pool.
 */
export const DEFAULT_MAX_CONCURRENT_SEARCHES = Math.max(
  1,
  Math.min(Math.floor((availableParallelism() * 3) / 2) + 1, 10),
);

/** Header keys ES 8 reads (MultiSearchRequest.readMultiLineFormat); any other is refused. */
const HEADER_KEYS = new Set([
  'index',
  'indices',
  'search_type',
  'ccs_minimize_roundtrips',
  'request_cache',
  'preference',
  'routing',
  'allow_partial_search_results',
  'expand_wildcards',
  'ignore_unavailable',
  'allow_no_indices',
  'ignore_throttled',
]);

const SEARCH_TYPES = new Set(['query_then_fetch', 'dfs_query_then_fetch']);

/** The query parameters each search inherits (the rest belong to the request or its headers). */
const INHERITED_PARAMS = ['rest_total_hits_as_int', 'typed_keys', 'include_named_queries_score'];

/**
 * Reads `_msearch` NDJSON (ES "Multi search API"): a header line then a body line per search. The whole
 * request fails, as in Elasticsearch, on a syntax error, an unknown header key, a body the search
 * parser refuses, or a last line without `\n`; a trailing header without its body is dropped.
 */
export async function parseMsearch(
  lines: AsyncIterable<Line>,
  pathIndex: string | undefined,
  query: Record<string, string | undefined>,
): Promise<MultiSearchItem[]> {
  const params: Record<string, string | undefined> = Object.create(null) as Record<
    string,
    string | undefined
  >;
  for (const key of INHERITED_PARAMS) params[key] = query[key];
  const items: MultiSearchItem[] = [];
  const iterator = lines[Symbol.asyncIterator]();
  let first = true;
  for (;;) {
    const header = await iterator.next();
    if (header.done) break;
    checkTerminated(header.value);
    // ES skips an empty first line ("support first line with \n").
    if (first && header.value.text.trim() === '') {
      first = false;
      continue;
    }
    first = false;
    const target = parseHeader(header.value, pathIndex, query.ignore_unavailable === 'true');
    const bodyLine = await iterator.next();
    if (bodyLine.done) break;
    checkTerminated(bodyLine.value);
    if (items.length === MAX_SEARCHES_PER_REQUEST) {
      throw new EsError(
        'illegal_argument_exception',
        `an _msearch request may hold at most [${MAX_SEARCHES_PER_REQUEST}] searches`,
      );
    }
    const text = bodyLine.value.text;
    const body = text.trim() === '' ? undefined : parseJsonWithLocations(text);
    parseSearchRequest(body, params); // a body the search parser refuses fails the whole request
    items.push({ target, body, params });
  }
  if (items.length === 0) {
    throw new EsError('action_request_validation_exception', 'Validation Failed: 1: no requests added;');
  }
  return items;
}

function checkTerminated(line: Line): void {
  if (!line.terminated) {
    throw new EsError(
      'illegal_argument_exception',
      'The msearch request must be terminated by a newline [\\n]',
    );
  }
}

function parseHeader(
  line: Line,
  pathIndex: string | undefined,
  ignoreUnavailable: boolean,
): MultiSearchItem['target'] {
  const header = line.text.trim() === '' ? {} : parseJsonText(line.text);
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw new EsError('illegal_argument_exception', `msearch header line [${line.number}] must be an object`);
  }
  let index = pathIndex;
  let ignore = ignoreUnavailable;
  for (const [key, value] of Object.entries(header)) {
    if (!HEADER_KEYS.has(key)) {
      throw new EsError(
        'illegal_argument_exception',
        `key [${key}] is not supported in the metadata section`,
      );
    }
    if (key === 'index' || key === 'indices') {
      const names = Array.isArray(value) ? value : [value];
      if (names.length === 0 || !names.every((n) => typeof n === 'string')) {
        throw new EsError(
          'illegal_argument_exception',
          `key [${key}] must be a string or an array of strings`,
        );
      }
      index = names.join(',');
    } else if (key === 'ignore_unavailable') {
      ignore = value === true || value === 'true';
    } else if (key === 'search_type' && !SEARCH_TYPES.has(String(value))) {
      throw new EsError('illegal_argument_exception', `No search type for [${String(value)}]`);
    }
    // The other keys (routing, preference, request_cache, …) change nothing on one shard.
  }
  return { index, ignoreUnavailable: ignore };
}

/** `max_concurrent_searches`: a positive integer (ES), lowered to the default ceiling above. */
export function maxConcurrentSearches(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_CONCURRENT_SEARCHES;
  const n = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isNaN(n)) {
    throw new EsError(
      'illegal_argument_exception',
      `Failed to parse int parameter [max_concurrent_searches] with value [${value}]`,
    );
  }
  if (n < 1) throw new EsError('illegal_argument_exception', 'maxConcurrentSearches must be positive');
  return Math.min(n, DEFAULT_MAX_CONCURRENT_SEARCHES);
}
