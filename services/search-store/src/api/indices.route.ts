import { type Router, type NextFunction, type Request, type Response } from 'express';
import { broadcastShards } from '../catalog/index-settings';
import { EsError } from '@acme/common';
import { bodyObject } from '../http/read-body';
import { isTruthyParam, parseBooleanParam } from '../http/query-params';
import { createIndex } from '../catalog/create-index';
import { deleteIndex } from '../catalog/delete-index';
import { getIndices } from '../catalog/get-indices';
import { parseExpandWildcards } from '../catalog/index-expression';
import { indexView } from '../catalog/index-view';
import { refreshIndices } from '../catalog/refresh-indices';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/** `/_foo` paths that are not ours fall through to other routers (search, count) or the 404 handler. */
export function skipUnderscore(req: Request, _res: Response, next: NextFunction): void {
  const index = req.params.index;
  next(typeof index === 'string' && index.startsWith('_') && index !== '_all' ? 'route' : undefined);
}

/** Create, get, exists, delete and refresh indices (ES "Index APIs"). */
export function indicesRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  route(
    'PUT',
    '/:index',
    'search.admin',
    'indices:admin/create',
    checkParams(ROUTE_PARAMS.createIndex),
    async (req, res) => {
      const body = bodyObject(req);
      const unknown = Object.keys(body).filter((k) => !['settings', 'mappings', 'aliases'].includes(k));
      if (unknown.length > 0) {
        // CreateIndexRequest#source: ElasticsearchParseException, no location and no suggestion.
        throw new EsError('parse_exception', `unknown key [${unknown[0]}] for create index`);
      }
      const created = await createIndex(deps.pool, {
        name: req.params.index as string,
        mappings: body.mappings,
        settings: body.settings,
        aliases: body.aliases,
      });
      res.json({ acknowledged: true, shards_acknowledged: true, index: created.name });
    },
  );

  route(
    'GET',
    '/:index',
    'search.read',
    'indices:admin/get',
    skipUnderscore,
    checkParams(ROUTE_PARAMS.getIndex),
    async (req, res) => {
      const { catalog, indices } = await getIndices(deps.pool, req.params.index as string, {
        ignoreUnavailable: parseBooleanParam(req.query.ignore_unavailable, 'ignore_unavailable', false),
        // GetIndexRequest: wildcards expand to open indices unless asked otherwise.
        expandWildcards: parseExpandWildcards(req.query.expand_wildcards, {
          open: true,
          closed: false,
          hidden: false,
        }),
      });
      const flat = isTruthyParam(req.query.flat_settings);
      res.json(Object.fromEntries(indices.map((index) => [index.name, indexView(catalog, index, flat)])));
    },
  );

  route(
    'DELETE',
    '/:index',
    'search.admin',
    'indices:admin/delete',
    skipUnderscore,
    checkParams(ROUTE_PARAMS.deleteIndex),
    async (req, res) => {
      await deleteIndex(deps.pool, deps.indexWriter, req.params.index as string);
      res.json({ acknowledged: true });
    },
  );

  const refresh = async (req: Request, res: Response) => {
    const indices = await refreshIndices(deps.pool, (req.params.index as string | undefined) ?? '_all');
    // Every write acknowledged before the refresh is then visible on the read replicas too.
    await deps.replicas?.awaitReplay();
    // The Refresh API's shape: each index's primary and replicas, the primaries successful.
    res.json({ _shards: broadcastShards(indices) });
  };
  const refreshParams = checkParams(ROUTE_PARAMS.refresh);
  route('POST', '/_refresh', 'search.write', 'indices:admin/refresh', refreshParams, refresh);
  route('GET', '/_refresh', 'search.write', 'indices:admin/refresh', refreshParams, refresh);
  route('POST', '/:index/_refresh', 'search.write', 'indices:admin/refresh', refreshParams, refresh);
  route('GET', '/:index/_refresh', 'search.write', 'indices:admin/refresh', refreshParams, refresh);

  return router;
}
