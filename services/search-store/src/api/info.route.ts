import { type Router } from 'express';
import { ES_VERSION, findClusterUuid } from '../catalog/cluster-info';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/** GET / and HEAD / (ES "Root API" / ping): the info body clients use to recognise Elasticsearch. */
export function infoRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  route(
    'GET',
    '/',
    'search.read',
    'cluster:monitor/main',
    checkParams(ROUTE_PARAMS.info),
    async (_req, res) => {
      res.json({
        name: deps.config.NODE_NAME,
        cluster_name: deps.config.CLUSTER_NAME,
        cluster_uuid: await findClusterUuid(deps.pool),
        version: ES_VERSION,
        tagline: 'You Know, for Search',
      });
    },
  );
  return router;
}
