import { type Router } from 'express';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/** The version we report: an 8.x release, so clients that check `version.number` ≥ 7.14 accept us. */
export const ES_VERSION = {
  number: '8.17.0',
  build_flavor: 'default',
  build_type: 'docker',
  build_hash: '2b6a7fed44faa321997703718f07ee0420804b41',
  build_date: '2024-12-11T12:08:05.663969764Z',
  build_snapshot: false,
  lucene_version: '9.12.0',
  minimum_wire_compatibility_version: '7.17.0',
  minimum_index_compatibility_version: '7.0.0',
};

/** The cluster uuid of search_instance shown as Elasticsearch shows uuids: 22 base64url characters. */
export async function findClusterUuid(deps: StoreDeps): Promise<string> {
  const { rows } = await deps.pool.query<{ cluster_uuid: string }>(
    'SELECT cluster_uuid FROM search_instance',
  );
  const hex = (rows[0]?.cluster_uuid ?? '').replace(/-/g, '');
  return Buffer.from(hex, 'hex').toString('base64url');
}

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
        cluster_uuid: await findClusterUuid(deps),
        version: ES_VERSION,
        tagline: 'You Know, for Search',
      });
    },
  );
  return router;
}
