import type { Request, Response, Router } from 'express';
import { checkParams } from '../http/check-params';
import { scopedRouter } from '../http/scoped-router';
import type { SearchContexts } from '../search/contexts/search-contexts';
import { clearScroll, continueScroll } from '../search/contexts/scroll-search';
import type { SearchOptions } from '../search/search-options';
import { contextUserOf } from '../auth/context-user';
import { clientGoneSignal } from './client-gone';
import { ROUTE_PARAMS } from './route-params';
import { queryParams, searchBodyOf } from './search-body';

/**
 * ES "Scroll API" and "Clear scroll API": `GET|POST /_search/scroll[/{scroll_id}]` (the path form is
 * deprecated in ES 8 and still served), `DELETE /_search/scroll[/{scroll_id}]` (`_all` too).
 * A scroll opens with `_search?scroll=` (api/search.route.ts, the Searcher).
 */
export function scrollRouter(deps: { contexts: SearchContexts; options?: SearchOptions }): Router {
  const { router, route } = scopedRouter();
  const next = async (req: Request, res: Response): Promise<void> => {
    const params = queryParams(req);
    const pathId = req.params.scroll_id as string | undefined;
    if (pathId !== undefined) params.scroll_id = pathId;
    const gone = clientGoneSignal(res);
    res.json(
      await continueScroll(
        deps.contexts,
        searchBodyOf(req, res),
        params,
        deps.options,
        gone,
        contextUserOf(req.principal),
      ),
    );
  };
  const clear = async (req: Request, res: Response): Promise<void> => {
    const cleared = await clearScroll(
      deps.contexts,
      searchBodyOf(req, res),
      req.params.scroll_id as string | undefined,
      contextUserOf(req.principal),
    );
    res.status(cleared.status).json(cleared.body);
  };
  const read = { scope: 'search.read', action: 'indices:data/read/scroll' } as const;
  const free = { scope: 'search.read', action: 'indices:data/read/scroll/clear' } as const;
  const scrollParams = checkParams(ROUTE_PARAMS.scroll);
  const clearParams = checkParams(ROUTE_PARAMS.clearScroll);
  route(['GET', 'POST'], '/_search/scroll', read.scope, read.action, scrollParams, next);
  route(['GET', 'POST'], '/_search/scroll/:scroll_id', read.scope, read.action, scrollParams, next);
  route('DELETE', '/_search/scroll', free.scope, free.action, clearParams, clear);
  route('DELETE', '/_search/scroll/:scroll_id', free.scope, free.action, clearParams, clear);
  return router;
}
