import { type Request, type Response, type Router } from 'express';
import { explainDocument } from '../search/explain-document';
import { checkParams } from '../http/check-params';
import { scopedRouter } from '../http/scoped-router';
import { clientGoneSignal } from './client-gone';
import { ROUTE_PARAMS } from './route-params';
import { queryParams, searchBodyOf } from './search-body';
import type { StoreDeps } from './store-deps';

/** GET|POST /<index>/_explain/<id> (ES "Explain API"); 404 with `matched: false` for a missing document. */
export function explainRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  const explain = async (req: Request, res: Response) => {
    const result = await explainDocument(
      deps.pool,
      {
        index: req.params.index as string,
        id: req.params.id as string,
        body: searchBodyOf(req, res),
        params: queryParams(req),
      },
      clientGoneSignal(res),
    );
    res.status(result.found ? 200 : 404).json(result.body);
  };
  route(
    ['GET', 'POST'],
    '/:index/_explain/:id',
    'search.read',
    'indices:data/read/explain',
    checkParams(ROUTE_PARAMS.explain),
    explain,
  );
  return router;
}
