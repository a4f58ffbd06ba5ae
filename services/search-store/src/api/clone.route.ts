import { type Router, type Request, type Response } from 'express';
import { bodyObject } from '../http/read-body';
import { cloneIndex } from '../write/clone-index';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/** POST|PUT /<source>/_clone/<target> (ES "Clone index API"). */
export function cloneRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  const clone = async (req: Request, res: Response) => {
    const body = bodyObject(req);
    const target = req.params.target as string;
    await cloneIndex(deps, {
      source: req.params.index as string,
      target,
      mappings: body.mappings,
      settings: body.settings,
      aliases: body.aliases,
    });
    res.json({ acknowledged: true, shards_acknowledged: true, index: target });
  };
  const params = checkParams(ROUTE_PARAMS.clone);
  route('POST', '/:index/_clone/:target', 'search.admin', 'indices:admin/resize', params, clone);
  route('PUT', '/:index/_clone/:target', 'search.admin', 'indices:admin/resize', params, clone);
  return router;
}
