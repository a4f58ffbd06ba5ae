import { type Router, type NextFunction, type Request, type Response } from 'express';
import { EsError } from '@acme/common';
import { bodyObject } from '../http/read-body';
import { isTruthyParam, parseBooleanParam } from '../http/query-params';
import { inTransaction } from '../storage/queryable';
import { isDestructiveRequiresName } from './cluster-settings.route';
import { createIndex } from '../catalog/create-index';
import { deleteIndices } from '../catalog/delete-index';
import { indexNotFound } from '../es-errors';
import { loadCatalog, resolveIndexExpression } from '../catalog/index-expression';
import { indexView } from '../catalog/index-view';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { checkIndexBlocks } from '../catalog/index-blocks';
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
        throw new EsError('parsing_exception', `unknown key [${unknown[0]}] for create index`, {
          metadata: { line: 1, col: 2 },
        });
      }
      const created = await inTransaction(deps.pool, async (client) =>
        createIndex(client, await loadCatalog(client), {
          name: req.params.index as string,
          mappings: body.mappings,
          settings: body.settings,
          aliases: body.aliases,
        }),
      );
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
      const catalog = await loadCatalog(deps.pool);
      const indices = resolveIndexExpression(catalog, req.params.index as string, {
        ignoreUnavailable: parseBooleanParam(req.query.ignore_unavailable, 'ignore_unavailable', false),
      });
      // TransportGetIndexAction (GET and HEAD): METADATA_READ blocks.
      checkIndexBlocks(indices, 'metadata_read');
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
      const expression = req.params.index as string;
      await inTransaction(deps.pool, async (client) => {
        const parts = expression.split(',');
        const isWildcard = parts.some((p) => p === '_all' || p.includes('*'));
        if (isWildcard && (await isDestructiveRequiresName(client))) {
          throw new EsError(
            'illegal_argument_exception',
            'Wildcard expressions or all indices are not allowed',
          );
        }
        const catalog = await loadCatalog(client);
        for (const part of parts) {
          if (part === '_all' || part.includes('*') || part.startsWith('-')) continue;
          if (catalog.indices.some((i) => i.name === part)) continue;
          if (catalog.aliases.some((a) => a.alias === part)) {
            throw new EsError(
              'illegal_argument_exception',
              `The provided expression [${part}] matches an alias, specify the corresponding concrete indices instead.`,
            );
          }
          throw indexNotFound(part);
        }
        // Wildcards delete indices only, never through aliases (ES expand_wildcards on delete).
        const indexOnly = { indices: catalog.indices, aliases: [] };
        const targets = resolveIndexExpression(indexOnly, expression, { ignoreUnavailable: true });
        // ClusterBlocks#indicesAllowReleaseResources: read_only and metadata refuse, read_only_allow_delete not.
        checkIndexBlocks(targets, 'metadata_write', { releasingResources: true });
        await deleteIndices(client, deps.indexWriter, targets);
      });
      res.json({ acknowledged: true });
    },
  );

  const refresh = async (req: Request, res: Response) => {
    const catalog = await loadCatalog(deps.pool);
    const indices = resolveIndexExpression(catalog, (req.params.index as string | undefined) ?? '_all');
    // Writes are visible when they return; refresh only acknowledges (ES "Refresh API" shape).
    const shards = indices.reduce((n, i) => n + 1 + Number(i.settings['index.number_of_replicas'] ?? '1'), 0);
    res.json({ _shards: { total: shards, successful: indices.length, failed: 0 } });
  };
  const refreshParams = checkParams(ROUTE_PARAMS.refresh);
  route('POST', '/_refresh', 'search.write', 'indices:admin/refresh', refreshParams, refresh);
  route('GET', '/_refresh', 'search.write', 'indices:admin/refresh', refreshParams, refresh);
  route('POST', '/:index/_refresh', 'search.write', 'indices:admin/refresh', refreshParams, refresh);
  route('GET', '/:index/_refresh', 'search.write', 'indices:admin/refresh', refreshParams, refresh);

  return router;
}
