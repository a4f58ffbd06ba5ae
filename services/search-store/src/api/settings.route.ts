import { type Router, type Request, type Response } from 'express';
import { bodyObject } from '../http/read-body';
import { isTruthyParam } from '../http/query-params';
import { lockIndices, saveSettings } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { loadCatalog, resolveIndexExpression } from '../catalog/index-expression';
import { settingsView } from '../catalog/index-view';
import { checkSettingsUpdate, flattenSettingsWithNulls } from '../catalog/index-settings';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { checkIndexBlocks, isUnblockingSettingsRequest } from '../catalog/index-blocks';
import { simpleMatcher } from '../text/simple-match';
import { scopedRouter } from '../http/scoped-router';

/** Defaults a setting returns to when it is reset with null. */
const SETTING_DEFAULTS: Record<string, string> = { 'index.number_of_replicas': '1' };

/** GET and PUT index settings (ES "Get index settings API", "Update index settings API"). */
export function settingsRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const getSettings = async (req: Request, res: Response) => {
    const catalog = await loadCatalog(deps.pool);
    const indices = resolveIndexExpression(catalog, (req.params.index as string | undefined) ?? '_all');
    checkIndexBlocks(indices, 'metadata_read');
    const flat = isTruthyParam(req.query.flat_settings);
    const name = req.params.name as string | undefined;
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
    const changes = normaliseKeys(flattenSettingsWithNulls(body.settings ?? body));
    await inTransaction(deps.pool, async (client) => {
      const catalog = await loadCatalog(client);
      const targets = resolveIndexExpression(catalog, (req.params.index as string | undefined) ?? '_all', {
        allowNoIndices: false,
      });
      const locked = await lockIndices(
        client,
        targets.map((t) => t.indexId),
      );
      // Metadata blocks refuse settings changes, except the ones that lift a block.
      if (!isUnblockingSettingsRequest(changes)) checkIndexBlocks(locked, 'metadata_write');
      for (const index of locked) {
        checkSettingsUpdate(index, changes);
        const settings = { ...index.settings };
        for (const [key, value] of Object.entries(changes)) {
          if (value === null) {
            if (SETTING_DEFAULTS[key] !== undefined) settings[key] = SETTING_DEFAULTS[key];
            else delete settings[key];
          } else settings[key] = value;
        }
        await saveSettings(client, index.indexId, settings, settings['index.blocks.write'] === 'true');
      }
    });
    res.json({ acknowledged: true });
  };
  const putParams = checkParams(ROUTE_PARAMS.putSettings);
  route('PUT', '/_settings', 'search.admin', 'indices:admin/settings/update', putParams, putSettings);
  route('PUT', '/:index/_settings', 'search.admin', 'indices:admin/settings/update', putParams, putSettings);
  return router;
}

function normaliseKeys(flat: Record<string, string | null>): Record<string, string | null> {
  return Object.fromEntries(
    Object.entries(flat).map(([k, v]) => [k.startsWith('index.') ? k : `index.${k}`, v]),
  );
}
