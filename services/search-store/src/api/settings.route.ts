import { type Router, type Request, type Response } from 'express';
import { bodyObject } from '../http/read-body';
import { newDictionary } from '@acme/common';
import { isTruthyParam, parseBooleanParam } from '../http/query-params';
import { getIndices } from '../catalog/get-indices';
import { OPEN_AND_CLOSED, parseExpandWildcards } from '../catalog/index-expression';
import { defaultsOf } from '../catalog/index-setting-defaults';
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
    const { indices } = await getIndices(deps.pool, (req.params.index as string | undefined) ?? '_all', {
      ignoreUnavailable: parseBooleanParam(req.query.ignore_unavailable, 'ignore_unavailable', false),
      allowNoIndices: parseBooleanParam(req.query.allow_no_indices, 'allow_no_indices', true),
      // GetSettingsRequest: wildcards reach open and closed indices.
      expandWildcards: parseExpandWildcards(req.query.expand_wildcards, OPEN_AND_CLOSED),
    });
    const flat = isTruthyParam(req.query.flat_settings);
    const withDefaults = parseBooleanParam(req.query.include_defaults, 'include_defaults', false);
    const name = req.params.name as string | undefined;
    // GET [/<index>]/_settings/<name>: a comma list of wildcard patterns (`_all`: every setting).
    const patterns = name === undefined || name === '' ? [] : name.split(',');
    const matchers = patterns.includes('_all') ? [] : patterns.slice(0, 1000).map((p) => simpleMatcher(p));
    const pick = (settings: Record<string, string>) =>
      matchers.length === 0
        ? settings
        : Object.fromEntries(Object.entries(settings).filter(([k]) => matchers.some((m) => m(k))));
    const body = newDictionary<unknown>(); // keyed by index name
    for (const index of indices) {
      const settings = pick(index.settings);
      const defaults = withDefaults ? pick(defaultsOf(index.settings)) : {};
      // GetSettingsResponse: an index left with no settings (and no defaults) is omitted.
      if (Object.keys(settings).length === 0 && Object.keys(defaults).length === 0) continue;
      const entry: Record<string, unknown> = { settings: settingsView({ ...index, settings }, flat) };
      if (withDefaults) entry.defaults = settingsView({ ...index, settings: defaults }, flat);
      body[index.name] = entry;
    }
    res.json(body);
  };
  const getParams = checkParams(ROUTE_PARAMS.getSettings);
  route('GET', '/_settings', 'search.read', 'indices:monitor/settings/get', getParams, getSettings);
  route('GET', '/:index/_settings', 'search.read', 'indices:monitor/settings/get', getParams, getSettings);
  route('GET', '/_settings/:name', 'search.read', 'indices:monitor/settings/get', getParams, getSettings);
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
