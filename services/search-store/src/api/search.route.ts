import { type Router, type Request, type Response } from 'express';
import type { SearchTarget } from '../search/search-target';
import { createCountRunner, createSearchRunner, type SearcherDeps } from '../search/searcher';
import { queryParams, searchBodyOf } from './search-body';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';
import type { RouteAccess } from '../auth/route-scope';
import { clientGoneSignal } from './client-gone';
import { contextUserOf } from '../auth/context-user';

const targetOf = (req: Request): SearchTarget => ({
  index: req.params.index as string | undefined,
  ignoreUnavailable: queryParams(req).ignore_unavailable === 'true',
});

/** What search and count need; the front route before express (lean-search.ts) checks the same. */
export const SEARCH_ACCESS: RouteAccess = { scope: 'search.read', action: 'indices:data/read/search' };

/** GET|POST /_search, /<index>/_search, /_count, /<index>/_count (ES search and count APIs). */
export function searchRouter(deps: SearcherDeps): Router {
  const { router, route } = scopedRouter();

  const runSearch = createSearchRunner(deps);
  const runCount = createCountRunner(deps);
  const search = async (req: Request, res: Response): Promise<void> => {
    const gone = clientGoneSignal(res);
    const user = contextUserOf(req.principal);
    res.json(await runSearch(targetOf(req), searchBodyOf(req, res), queryParams(req), gone, user));
  };
  const count = async (req: Request, res: Response): Promise<void> => {
    const gone = clientGoneSignal(res);
    res.json(await runCount(targetOf(req), searchBodyOf(req, res), queryParams(req), gone));
  };

  const searchParams = checkParams(ROUTE_PARAMS.search);
  const countParams = checkParams(ROUTE_PARAMS.count);
  route(['GET', 'POST'], '/_search', SEARCH_ACCESS.scope, SEARCH_ACCESS.action, searchParams, search);
  route(['GET', 'POST'], '/:index/_search', SEARCH_ACCESS.scope, SEARCH_ACCESS.action, searchParams, search);
  route(['GET', 'POST'], '/_count', SEARCH_ACCESS.scope, SEARCH_ACCESS.action, countParams, count);
  route(['GET', 'POST'], '/:index/_count', SEARCH_ACCESS.scope, SEARCH_ACCESS.action, countParams, count);
  return router;
}
