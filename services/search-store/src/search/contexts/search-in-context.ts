import { EsError } from '@acme/common';
import type { SearchOptions } from '../search-options';
import type { SearchTarget } from '../search-target';
import { searchPointInTime, wantsPointInTime } from './point-in-time-search';
import { openScroll } from './scroll-search';
import type { SearchContexts } from './search-contexts';

/** Whether a `_search` opens a scroll (`?scroll=`) or reads a point in time (`pit` in the body). */
export function needsContext(body: unknown, params: Record<string, string | undefined>): boolean {
  return params.scroll !== undefined || wantsPointInTime(body);
}

/** A `_search` that needs a context: a PIT search, else the first page of a new scroll. */
export async function searchInContext(
  contexts: SearchContexts | undefined,
  target: SearchTarget,
  body: unknown,
  params: Record<string, string | undefined>,
  options: SearchOptions | undefined,
  gone: AbortSignal | undefined,
  user: string | undefined,
): Promise<unknown> {
  // A searcher built without contexts refuses rather than ignores them.
  if (!contexts) throw new EsError('illegal_argument_exception', '[scroll] and [pit] are not available here');
  if (wantsPointInTime(body)) {
    return searchPointInTime(contexts, target, body as Record<string, unknown>, params, options, gone, user);
  }
  return openScroll(contexts, target, body, params, options, gone, user);
}
