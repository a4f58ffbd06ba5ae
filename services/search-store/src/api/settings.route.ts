import { type Router, type Request, type Response } from 'express';
import { bodyObject } from '../http/read-body';
import { isTruthyParam } from '../http/query-params';
import { getIndices } from '../catalog/get-indices';
import { settingsView } from '../catalog/index-view';
import { updateIndexSettings } from '../catalog/update-index-settings';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { simpleMatcher } from '../text/simple-match';
import { scopedRouter } from '../http/scoped-router';

/** GET and PUT index settings (ES "Get index settings API", "Update index settings API"). */
export function settingsRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const getSettings = async (req: Request, res: Response) => {
    const { indices } = await getIndices(deps.pool, (req.params.index as string | undefined) ?? '_all');
    const flat = isTruthyParam(req.query.flat_settings);
    const name = req.params.name as string | undefined;
    // GET /<index>/_settings/<name>: only the settings the name (a wildcard pattern) matches.
    const pick = (index: (typeof indices)[number]) => {
      if (!name) return index;
      const matches = simpleMatcher(name);
      return {
        ...index,
        settings: Object.fromEntries(Object.entries(index.settings).filter(([k]) => matches(k))),
      };
    };
    res.json(Object.fromEntries(indices.map((i) => [i.name, { settings: settingsView(pick(i), flat) }])));
  };
  const getParams = checkParams(ROUTE_PARAMS.getSettings);
  route('GET', '/_settings', 'search.read', 'indices:monitor/settings/get', getParams, getSettings);
  route('GET', '/:index/_settings', 'search.read', 'indices:monitor/settings/get', getParams, getSettings);
  route(
    'GET',
    '/:index/_settings/:name',
    'search.read',
    'indices:monitor/settings/get',
    getParams,
    getSettings,
  );

  const putSettings = async (req: Request, res: Response) => {
    const body = bodyObject(req);
    // The body is the settings, or holds them under `settings`.
    await updateIndexSettings(
      deps.pool,
      (req.params.index as string | undefined) ?? '_all',
      body.settings ?? body,
    );
    res.json({ acknowledged: true });
  };
  const putParams = checkParams(ROUTE_PARAMS.putSettings);
  route('PUT', '/_settings', 'search.admin', 'indices:admin/settings/update', putParams, putSettings);
  route('PUT', '/:index/_settings', 'search.admin', 'indices:admin/settings/update', putParams, putSettings);
  return router;
}
