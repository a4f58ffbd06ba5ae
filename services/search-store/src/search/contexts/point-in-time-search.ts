import { EsError } from '@acme/common';
import { resolveTermsLookups } from '../terms-lookup';
import { parseSearchRequest, type SearchRequest } from '../../query/parse/search-request';
import { executeSearch } from '../execute-search';
import { resolveIndicesBoost } from '../indices-boost';
import type { SearchOptions } from '../search-options';
import type { SearchTarget } from '../search-target';
import { validationFailed } from './context-errors';
import { encodeContextId, parsePitId } from './context-id';
import { keepAliveOf } from './scroll-search';
import type { SearchContexts } from './search-contexts';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** `POST /{index}/_pit?keep_alive=…`: opens a point in time on the indices as they are now. */
export async function openPointInTime(
  contexts: SearchContexts,
  target: SearchTarget,
  params: Record<string, string | undefined>,
  user: string | undefined,
): Promise<Json> {
  if (params.keep_alive === undefined) throw validationFailed(['[keep_alive] is not specified']);
  const keepAliveMs = keepAliveOf(params.keep_alive, 'keep_alive');
  const row = await contexts.open('pit', target, keepAliveMs, null, user);
  const shards = await contexts
    .read(row, async (_client, readers) => readers.length)
    .catch(async (error: unknown) => {
      await contexts.free('pit', [row.id], user).catch(() => undefined);
      throw error;
    });
  return {
    id: encodeContextId('pit', row.id),
    _shards: { total: shards, successful: shards, skipped: 0, failed: 0 },
  };
}

/** `DELETE /_pit` `{id}`: frees it; 404 with the same body when it was not open (ES ClosePointInTimeResponse). */
export async function closePointInTime(
  contexts: SearchContexts,
  body: unknown,
  user: string | undefined,
): Promise<{ status: number; body: { succeeded: true; num_freed: number } }> {
  const id = isObject(body) ? body.id : undefined;
  if (typeof id !== 'string' || id === '') throw validationFailed(['id is empty']);
  const freed = await contexts.free('pit', [parsePitId(id)], user);
  return { status: freed === 0 ? 404 : 200, body: { succeeded: true, num_freed: freed } };
}

/** Whether a search body reads a point in time (`pit`), which routes it here. */
export function wantsPointInTime(body: unknown): boolean {
  return isObject(body) && body.pit !== undefined;
}

/**
 * ES's implicit tiebreaker (SearchRequest#rewrite): a sorted PIT search gets `_shard_doc` last
 * unless it sorts by it already or its search_after leaves it out; the hits' sort values show it.
 */
function withTiebreaker(request: SearchRequest): SearchRequest {
  const { sort, searchAfter } = request;
  if (sort.length === 0 || sort.at(-1)!.kind === 'shard_doc') return request;
  if (searchAfter !== undefined && searchAfter.length !== sort.length + 1) return request;
  return { ...request, sort: [...sort, { kind: 'shard_doc', order: 'asc' }] };
}

/** `_search` with `pit: {id, keep_alive}`: the search in the PIT's snapshot, answering `pit_id`. */
export async function searchPointInTime(
  contexts: SearchContexts,
  target: SearchTarget,
  body: Json,
  params: Record<string, string | undefined>,
  options: SearchOptions | undefined,
  gone: AbortSignal | undefined,
  user: string | undefined,
): Promise<unknown> {
  const started = Date.now();
  const pit = body.pit;
  const errors: string[] = [];
  if (params.scroll !== undefined) errors.push('using [point in time] is not allowed in a scroll context');
  if (target.index !== undefined)
    errors.push('[indices] cannot be used with point in time. Do not specify any index with point in time.');
  if (params.routing !== undefined) errors.push('[routing] cannot be used with point in time');
  if (params.preference !== undefined) errors.push('[preference] cannot be used with point in time');
  if (errors.length > 0) throw validationFailed(errors);
  if (!isObject(pit) || typeof pit.id !== 'string') {
    throw new EsError('parsing_exception', '[pit] failed to parse field [id]', {
      metadata: { line: 1, col: 1 },
    });
  }
  for (const key of Object.keys(pit)) {
    if (key !== 'id' && key !== 'keep_alive') {
      throw new EsError('x_content_parse_exception', `[1:1] [pit] unknown field [${key}]`);
    }
  }
  const id = parsePitId(pit.id);
  const keepAliveMs = pit.keep_alive === undefined ? undefined : keepAliveOf(pit.keep_alive, 'keep_alive');
  const request = withTiebreaker(parseSearchRequest(body, params));
  const row = await contexts.find(id, 'pit', user);
  const response = await contexts.read(
    row,
    // Terms lookups read their documents in the PIT's snapshot (ES reads them live with a GET:
    // DESIGN.md lists the difference); the search itself is the snapshot's either way.
    async (client, readers) =>
      executeSearch(
        client,
        readers,
        await resolveIndicesBoost(client, await resolveTermsLookups(client, request), false),
        options,
        started,
      ),
    gone,
  );
  await contexts.touch(row, keepAliveMs);
  return { pit_id: encodeContextId('pit', row.id), ...response };
}
