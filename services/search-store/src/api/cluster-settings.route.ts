import { type Router } from 'express';
import { bodyObject } from '../http/read-body';
import { isTruthyParam } from '../http/query-params';
import { getClusterSettings, updateClusterSettings } from '../catalog/cluster-settings';
import type { Queryable } from '../storage/queryable';
import { flattenSettingsWithNulls, nestSettings } from '../catalog/index-settings';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/**
 * PUT/GET /_cluster/settings (ES "Cluster update settings API", "Cluster get settings API"). Values
 * come back as strings, nested unless `flat_settings=true`.
 */
export function clusterSettingsRouter(deps: { pool: Queryable }): Router {
  const { router, route } = scopedRouter();
  route(
    'GET',
    '/_cluster/settings',
    'search.admin',
    'cluster:monitor/settings',
    checkParams(ROUTE_PARAMS.getClusterSettings),
    async (req, res) => {
      const settings = await getClusterSettings(deps.pool);
      const flat = isTruthyParam(req.query.flat_settings);
      const body: Record<string, unknown> = {
        persistent: flat ? settings : nestSettings(settings),
        transient: {},
      };
      if (isTruthyParam(req.query.include_defaults)) {
        body.defaults = flat
          ? { 'action.destructive_requires_name': 'true' }
          : { action: { destructive_requires_name: 'true' } };
      }
      res.json(body);
    },
  );
  route(
    'PUT',
    '/_cluster/settings',
    'search.admin',
    'cluster:admin/settings/update',
    checkParams(ROUTE_PARAMS.putClusterSettings),
    async (req, res) => {
      const body = bodyObject(req);
      const persistent = flattenSettingsWithNulls(body.persistent ?? {});
      const transient = flattenSettingsWithNulls(body.transient ?? {});
      await updateClusterSettings(deps.pool, persistent, transient);
      const shown = (settings: Record<string, string | null>) => {
        const kept = Object.fromEntries(
          Object.entries(settings).filter((e): e is [string, string] => e[1] !== null),
        );
        return isTruthyParam(req.query.flat_settings) ? kept : nestSettings(kept);
      };
      res.json({ acknowledged: true, persistent: shown(persistent), transient: shown(transient) });
    },
  );
  return router;
}
