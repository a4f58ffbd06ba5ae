import { EsError } from '@acme/common';
import { parseTimeParam } from '../../http/time-param';
import { resolveTermsLookups } from '../terms-lookup';
import { parseSearchRequest, type SearchRequest, type SortKey } from '../../query/parse/search-request';
import { ShardQueryError } from '../../query/shard-query-error';
import type { IndexReader } from '../../query/index-reader';
import { executeSearch } from '../execute-search';
import { resolveIndicesBoost } from '../indices-boost';
import type { SearchOptions } from '../search-options';
import type { SearchTarget } from '../search-target';
import { validationFailed } from './context-errors';
import { encodeContextId, parseScrollId } from './context-id';
import type { SearchContexts } from './search-contexts';
import type { KnownTotal, SearchContextRow } from '../../storage/search-contexts.repo';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A keep-alive (`scroll=1m`, PIT `keep_alive`) in ms, as ES parses time values. */
export function keepAliveOf(value: unknown, name: string): number {
  const ms = parseTimeParam(value, name, -1);
  if (ms <= 0) {
    throw new EsError(
      'illegal_argument_exception',
      `failed to parse setting [${name}] with value [${String(value)}]: a keep-alive must be positive`,
    );
  }
  return ms;
}

/** ES SearchRequest#validate for a scroll (and parseSource's search_after check). */
function checkScrollRequest(
  body: unknown,
  params: Record<string, string | undefined>,
  request: SearchRequest,
): void {
  const b = isObject(body) ? body : {};
  const errors: string[] = [];
  // Only a given track_total_hits counts: a scroll always counts every hit (resolveTrackTotalHitsUpTo).
  const given = params.track_total_hits ?? b.track_total_hits;
  if (given !== undefined && request.trackTotalHits !== true)
    errors.push('disabling [track_total_hits] is not allowed in a scroll context');
  if (request.from > 0) errors.push('using [from] is not allowed in a scroll context');
  if (request.size === 0) errors.push('[size] cannot be [0] in a scroll context');
  if (request.rescore !== undefined) errors.push('using [rescore] is not allowed in a scroll context');
  if (b.pit !== undefined) errors.push('using [point in time] is not allowed in a scroll context');
  if (b.search_after !== undefined) errors.push('[search_after] cannot be used in a scroll context');
  if (request.collapse !== undefined) errors.push('cannot use `collapse` in a scroll context');
  if (errors.length > 0) throw validationFailed(errors);
}

/** ES: a scroll's batch size is bounded by `index.max_result_window`, not from + size. */
function checkBatchSize(readers: IndexReader[], size: number): void {
  const window = Math.min(
    ...readers.map((r) => Number(r.settings['index.max_result_window'] ?? 10000)),
    Number.MAX_SAFE_INTEGER,
  );
  if (size > window) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `Batch size is too large, size must be less than or equal to: [${window}] but was [${size}]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.`,
    });
  }
}

/**
 * A scroll page is a search_after in the context's snapshot: the request's sort (`_score` when it
 * has none; `_doc` as `_shard_doc`, which orders documents across indices), then `_shard_doc` as
 * tiebreaker, after the last hit served. Pages cost one search each, never an offset that grows.
 */
function pageRequest(row: SearchContextRow): { request: SearchRequest; userSort: number } {
  const stored = row.request!;
  const request = parseSearchRequest(stored.body, stored.params);
  const userSort = request.sort.length;
  const keys: SortKey[] = request.sort.map((key) =>
    key.kind === 'doc' ? { kind: 'shard_doc', order: key.order } : key,
  );
  const sort: SortKey[] = [
    ...(keys.length === 0 ? [{ kind: 'score', order: 'desc' } as const] : keys),
    { kind: 'shard_doc', order: 'asc' },
  ];
  return {
    request: {
      ...request,
      sort,
      from: 0,
      trackTotalHits: true,
      searchAfter: row.position ?? undefined,
      knownTotal: row.position === null ? undefined : stored.known,
    },
    userSort,
  };
}

function knownTotalOf(response: Json): KnownTotal | undefined {
  const hits = response.hits as { total?: unknown; max_score?: unknown } | undefined;
  const total = hits?.total;
  const value = typeof total === 'number' ? total : (total as { value?: unknown } | undefined)?.value;
  if (typeof value !== 'number') return undefined;
  const maxScore = typeof hits?.max_score === 'number' ? hits.max_score : null;
  return { total: value, maxScore };
}

/** Runs the next page of a scroll in its snapshot and moves its position on. */
async function nextPage(
  contexts: SearchContexts,
  row: SearchContextRow,
  keepAliveMs: number | undefined,
  params: Record<string, string | undefined>,
  options: SearchOptions | undefined,
  gone: AbortSignal | undefined,
): Promise<Json> {
  const started = Date.now();
  const { request, userSort } = pageRequest(row);
  request.restTotalHitsAsInt = params.rest_total_hits_as_int === 'true';
  const response = await contexts.read(
    row,
    async (client, readers) => {
      checkBatchSize(readers, request.size);
      // Terms lookups read their documents in the context's snapshot: every page sees the values
      // the first one saw, as ES keeps the first search's rewritten query for the whole scroll.
      const resolved = await resolveIndicesBoost(client, await resolveTermsLookups(client, request), false);
      return executeSearch(client, readers, resolved, options, started);
    },
    gone,
  );
  const hits = response.hits.hits;
  const last = hits.at(-1)?.sort as unknown[] | undefined;
  for (const hit of hits) {
    // The hits show the request's own sort values (the `_doc` ones as `_shard_doc` would print).
    if (userSort === 0) delete hit.sort;
    else hit.sort = (hit.sort as unknown[]).slice(0, userSort);
  }
  // The first page's count and max score stand for every page (one snapshot, one query).
  const known =
    row.position === null && row.request?.known === undefined
      ? knownTotalOf(response as unknown as Json)
      : undefined;
  await contexts.touch(row, keepAliveMs, last, known);
  return { _scroll_id: encodeContextId('scroll', row.id), ...response };
}

/** `_search?scroll=<keep-alive>`: opens a scroll context and answers its first page. */
export async function openScroll(
  contexts: SearchContexts,
  target: SearchTarget,
  body: unknown,
  params: Record<string, string | undefined>,
  options: SearchOptions | undefined,
  gone: AbortSignal | undefined,
  user: string | undefined,
): Promise<unknown> {
  const keepAliveMs = keepAliveOf(params.scroll, 'scroll');
  checkScrollRequest(body, params, parseSearchRequest(body, params));
  const stored = { ...params };
  delete stored.scroll;
  delete stored.rest_total_hits_as_int;
  const row = await contexts.open(
    'scroll',
    target,
    keepAliveMs,
    { body: body ?? null, params: stored },
    user,
  );
  try {
    return await nextPage(contexts, row, undefined, params, options, gone);
  } catch (error) {
    // A first page that fails leaves no context behind (ES frees it with the failed search).
    await contexts.free('scroll', [row.id], user).catch(() => undefined);
    throw error;
  }
}

/** The `scroll_id` and `scroll` of a scroll request: the body's win over the URL's (ES RestSearchScrollAction). */
function scrollArguments(
  body: unknown,
  params: Record<string, string | undefined>,
): { scrollId: string | undefined; scroll: unknown } {
  if (body !== undefined && body !== null && !isObject(body)) {
    throw new EsError('parsing_exception', 'request body or source parameter is required');
  }
  const b = isObject(body) ? body : {};
  for (const key of Object.keys(b)) {
    if (key !== 'scroll_id' && key !== 'scroll') {
      throw new EsError(
        'illegal_argument_exception',
        `Unknown parameter [${key}] in request body or parameter is of the wrong type[${typeof b[key] === 'string' ? 'VALUE_STRING' : 'START_OBJECT'}] `,
      );
    }
  }
  const scrollId = typeof b.scroll_id === 'string' ? b.scroll_id : params.scroll_id;
  return { scrollId, scroll: b.scroll ?? params.scroll };
}

/** `GET|POST /_search/scroll`: the next page of a scroll. */
export async function continueScroll(
  contexts: SearchContexts,
  body: unknown,
  params: Record<string, string | undefined>,
  options: SearchOptions | undefined,
  gone: AbortSignal | undefined,
  user: string | undefined,
): Promise<unknown> {
  const { scrollId, scroll } = scrollArguments(body, params);
  if (scrollId === undefined || scrollId === '') throw validationFailed(['scrollId is missing']);
  const id = parseScrollId(scrollId);
  const keepAliveMs = scroll === undefined ? undefined : keepAliveOf(scroll, 'scroll');
  const row = await contexts.find(id, 'scroll', user);
  return nextPage(contexts, row, keepAliveMs, params, options, gone);
}

/**
 * `DELETE /_search/scroll`: the ids of the body (a string or an array) win over the path's; `_all`
 * frees every scroll. ES answers 404 when nothing was freed, with the same body.
 */
export async function clearScroll(
  contexts: SearchContexts,
  body: unknown,
  pathIds: string | undefined,
  user: string | undefined,
): Promise<{ status: number; body: { succeeded: true; num_freed: number } }> {
  const b = isObject(body) ? body : {};
  const fromBody = b.scroll_id;
  const wire: string[] =
    typeof fromBody === 'string'
      ? [fromBody]
      : Array.isArray(fromBody)
        ? fromBody.map(String)
        : pathIds === undefined
          ? []
          : pathIds.split(',');
  if (wire.length === 0) throw validationFailed(['no scroll ids specified']);
  if (wire.length > 10_000) throw validationFailed(['too many scroll ids']);
  const freed = wire.includes('_all')
    ? await contexts.free('scroll', 'all', user)
    : await contexts.free('scroll', wire.map(parseScrollId), user);
  return { status: freed === 0 ? 404 : 200, body: { succeeded: true, num_freed: freed } };
}
