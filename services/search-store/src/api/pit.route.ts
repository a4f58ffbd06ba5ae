import type { Request, Response, Router } from 'express';
import { checkParams } from '../http/check-params';
import { scopedRouter } from '../http/scoped-router';
import { closePointInTime, openPointInTime } from '../search/contexts/point-in-time-search';
import type { SearchContexts } from '../search/contexts/search-contexts';
import { contextUserOf } from '../auth/context-user';
import { ROUTE_PARAMS } from './route-params';
import { queryParams, searchBodyOf } from './search-body';

/**
 * ES "Open point in time API" (`POST /{index}/_pit?keep_alive=`) and "Close point in time API"
 * (`DELETE /_pit` `{id}`); a PIT is read by `_search` with `pit` in its body (the Searcher).
 */
export function pitRouter(deps: { contexts: SearchContexts }): Router {
  const { router, route } = scopedRouter();
  const open = async (req: Request, res: Response): Promise<void> => {
    const params = queryParams(req);
    const target = {
      index: req.params.index as string,
      ignoreUnavailable: params.ignore_unavailable === 'true',
    };
    res.json(await openPointInTime(deps.contexts, target, params, contextUserOf(req.principal)));
  };
  const close = async (req: Request, res: Response): Promise<void> => {
    const closed = await closePointInTime(
      deps.contexts,
      searchBodyOf(req, res),
      contextUserOf(req.principal),
    );
    res.status(closed.status).json(closed.body);
  };
  route(
    'POST',
    '/:index/_pit',
    'search.read',
    'indices:data/read/open_point_in_time',
    checkParams(ROUTE_PARAMS.openPointInTime),
    open,
  );
  route(
    'DELETE',
    '/_pit',
    'search.read',
    'indices:data/read/close_point_in_time',
    checkParams(ROUTE_PARAMS.closePointInTime),
    close,
  );
  return router;
}
