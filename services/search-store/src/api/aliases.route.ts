import { type Router, type Request, type Response } from 'express';
import { EsError, newDictionary } from '@acme/common';
import { bodyObject } from '../http/read-body';
import { putAliases } from '../catalog/add-alias';
import { getAliases, getAllAliases } from '../catalog/get-aliases';
import { removeAliases } from '../catalog/remove-alias';
import { updateAliases } from '../catalog/update-aliases';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/** GET /_aliases, GET /_alias[/<name>], GET /<index>/_alias[/<name>], POST /_aliases (ES "Alias APIs"). */
export function aliasesRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  route(
    'GET',
    '/_aliases',
    'search.read',
    'indices:admin/aliases/get',
    checkParams(ROUTE_PARAMS.getAlias),
    async (_req, res) => {
      const all = await getAllAliases(deps.pool);
      res.json(Object.fromEntries(all.map((i) => [i.index, { aliases: i.aliases }])));
    },
  );

  const getAlias = async (req: Request, res: Response) => {
    const { found, missing } = await getAliases(
      deps.pool,
      (req.params.index as string | undefined) ?? '_all',
      req.params.name === undefined ? undefined : String(req.params.name).split(','),
    );
    const body = newDictionary<unknown>(); // keyed by index name
    for (const { index, aliases } of found) body[index] = { aliases };
    if (missing.length > 0) {
      // Elasticsearch answers a missing alias with 404 and a bare string error beside what was found.
      res.status(404).json({ error: `alias [${missing.join(',')}] missing`, status: 404, ...body });
      return;
    }
    res.json(body);
  };
  const getAliasParams = checkParams(ROUTE_PARAMS.getAlias);
  route('GET', '/_alias', 'search.read', 'indices:admin/aliases/get', getAliasParams, getAlias);
  route('GET', '/_alias/:name', 'search.read', 'indices:admin/aliases/get', getAliasParams, getAlias);
  route('GET', '/:index/_alias', 'search.read', 'indices:admin/aliases/get', getAliasParams, getAlias);
  route('GET', '/:index/_alias/:name', 'search.read', 'indices:admin/aliases/get', getAliasParams, getAlias);
  route('GET', '/:index/_aliases', 'search.read', 'indices:admin/aliases/get', getAliasParams, getAlias);

  // PUT /<index>/_alias/<name> and DELETE /<index>/_alias/<name> (ES "Create or update alias", "Delete alias").
  const putAlias = async (req: Request, res: Response) => {
    const body = bodyObject(req);
    await putAliases(deps.pool, req.params.index as string, String(req.params.name).split(','), body);
    res.json({ acknowledged: true });
  };
  const deleteAliasRoute = async (req: Request, res: Response) => {
    await removeAliases(deps.pool, req.params.index as string, String(req.params.name).split(','));
    res.json({ acknowledged: true });
  };
  for (const path of ['/:index/_alias/:name', '/:index/_aliases/:name']) {
    route(
      ['PUT', 'POST'],
      path,
      'search.admin',
      'indices:admin/aliases',
      checkParams(ROUTE_PARAMS.putAlias),
      putAlias,
    );
    route(
      'DELETE',
      path,
      'search.admin',
      'indices:admin/aliases',
      checkParams(ROUTE_PARAMS.deleteAlias),
      deleteAliasRoute,
    );
  }

  route(
    'POST',
    '/_aliases',
    'search.admin',
    'indices:admin/aliases',
    checkParams(ROUTE_PARAMS.updateAliases),
    async (req, res) => {
      const body = bodyObject(req);
      if (!Array.isArray(body.actions)) {
        throw new EsError(
          'action_request_validation_exception',
          'Validation Failed: 1: No action specified;',
        );
      }
      const results = await updateAliases(deps, body.actions as unknown[]);
      if (results.some((r) => r.error)) {
        res.json({ acknowledged: true, errors: true, action_results: results });
        return;
      }
      res.json({ acknowledged: true, errors: false });
    },
  );

  return router;
}
