import { type Router, type Request, type Response } from 'express';
import type { PoolClient } from 'pg';
import { EsError, newDictionary } from '@acme/common';
import { bodyObject } from '../http/read-body';
import { deleteAlias, saveAlias } from '../storage/aliases.repo';
import { inTransaction } from '../storage/queryable';
import { checkIndexName } from '../catalog/check-index-name';
import { deleteIndices } from '../catalog/delete-index';
import { indexNotFound } from '../es-errors';
import { loadCatalog, resolveIndexExpression, type Catalog } from '../catalog/index-expression';
import { aliasView } from '../catalog/index-view';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { checkIndexBlocks } from '../catalog/index-blocks';
import { simpleMatch } from '../text/simple-match';
import { scopedRouter } from '../http/scoped-router';

function names(one: unknown, many: unknown): string[] {
  const list = [
    ...(Array.isArray(many) ? many : many === undefined ? [] : [many]),
    ...(one === undefined ? [] : [one]),
  ];
  return list.map(String);
}

function aliasesMissing(aliases: string[]): EsError {
  const list = aliases.join(',');
  return new EsError('aliases_not_found_exception', `aliases [${list}] missing`, {
    metadata: { 'resource.type': 'aliases', 'resource.id': list },
  });
}

interface ActionResult {
  action: { type: string; indices: string[]; aliases: string[] };
  status: number;
  error?: Record<string, unknown>;
}

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
      const catalog = await loadCatalog(deps.pool);
      const visible = catalog.indices.filter((i) => !i.name.startsWith('.'));
      checkIndexBlocks(resolveIndexExpression(catalog, '_all'), 'metadata_read');
      res.json(Object.fromEntries(visible.map((i) => [i.name, { aliases: aliasView(catalog, i) }])));
    },
  );

  const getAlias = async (req: Request, res: Response) => {
    const catalog = await loadCatalog(deps.pool);
    const indices = resolveIndexExpression(catalog, (req.params.index as string | undefined) ?? '_all');
    checkIndexBlocks(indices, 'metadata_read');
    const requested = req.params.name === undefined ? undefined : String(req.params.name).split(',');
    const body = newDictionary<unknown>(); // keyed by index name
    const found = new Set<string>();
    for (const index of indices) {
      const all = aliasView(catalog, index);
      const picked = Object.fromEntries(
        Object.entries(all).filter(([alias]) => {
          const hit = !requested || requested.some((r) => r === '_all' || simpleMatch(r, alias));
          if (hit) found.add(alias);
          return hit;
        }),
      );
      // Without a name every index is listed; with one, only the indices that hold it.
      if (!requested || Object.keys(picked).length > 0) body[index.name] = { aliases: picked };
    }
    const missing = (requested ?? []).filter((r) => !r.includes('*') && r !== '_all' && !found.has(r));
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
    await inTransaction(deps.pool, async (client) => {
      const catalog = await loadCatalog(client);
      const targets = resolveIndexExpression(catalog, req.params.index as string);
      checkIndexBlocks(targets, 'metadata_write');
      await addAlias(client, catalog, targets, String(req.params.name).split(','), body);
    });
    res.json({ acknowledged: true });
  };
  const deleteAliasRoute = async (req: Request, res: Response) => {
    await inTransaction(deps.pool, async (client) => {
      const catalog = await loadCatalog(client);
      const targets = resolveIndexExpression(catalog, req.params.index as string);
      checkIndexBlocks(targets, 'metadata_write');
      const aliases = String(req.params.name).split(',');
      const result: ActionResult = { action: { type: 'remove', indices: [], aliases }, status: 200 };
      const outcome = await removeAlias(client, catalog, targets, aliases, { must_exist: true }, result);
      if (outcome.error) throw aliasesMissing(aliases);
    });
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
      const results = await inTransaction(deps.pool, async (client) => {
        checkActionBlocks(await loadCatalog(client), body.actions as unknown[]);
        const out: ActionResult[] = [];
        for (const entry of body.actions as unknown[]) out.push(await applyAction(client, deps, entry));
        return out;
      });
      const failed = results.filter((r) => r.error);
      if (failed.length > 0 && failed.length === results.length && results.length === 1) {
        throw aliasesMissing(results[0]?.action.aliases ?? []);
      }
      if (failed.length > 0) {
        res.json({ acknowledged: true, errors: true, action_results: results });
        return;
      }
      res.json({ acknowledged: true, errors: false });
    },
  );

  return router;
}

/**
 * `TransportIndicesAliasesAction#checkBlock`: METADATA_WRITE blocks on every index the actions name
 * (as written), before any action runs.
 */
function checkActionBlocks(catalog: Catalog, actions: unknown[]): void {
  const named = new Set<string>();
  for (const entry of actions) {
    if (typeof entry !== 'object' || entry === null) continue;
    for (const spec of Object.values(entry as Record<string, Record<string, unknown> | null>)) {
      if (spec && typeof spec === 'object') for (const n of names(spec.index, spec.indices)) named.add(n);
    }
  }
  checkIndexBlocks(
    catalog.indices.filter((i) => named.has(i.name)),
    'metadata_write',
  );
}

async function applyAction(client: PoolClient, deps: StoreDeps, entry: unknown): Promise<ActionResult> {
  if (typeof entry !== 'object' || entry === null || Object.keys(entry).length !== 1) {
    throw new EsError('illegal_argument_exception', 'Expected exactly one action per entry');
  }
  const [type, spec] = Object.entries(entry as Record<string, Record<string, unknown>>)[0] as [
    string,
    Record<string, unknown>,
  ];
  const catalog = await loadCatalog(client);
  const indexNames = names(spec.index, spec.indices);
  const aliasNames = names(spec.alias, spec.aliases);
  if (indexNames.length === 0) {
    throw new EsError(
      'action_request_validation_exception',
      'Validation Failed: 1: One of [index] or [indices] is required;',
    );
  }
  const targets = resolveIndexExpression(catalog, indexNames.join(','));
  const result: ActionResult = {
    action: { type, indices: targets.map((t) => t.name), aliases: aliasNames },
    status: 200,
  };
  switch (type) {
    case 'add':
      await addAlias(client, catalog, targets, aliasNames, spec);
      return result;
    case 'remove':
      return removeAlias(client, catalog, targets, aliasNames, spec, result);
    case 'remove_index':
      for (const name of indexNames) {
        if (!name.includes('*') && catalog.aliases.some((a) => a.alias === name)) {
          throw new EsError(
            'illegal_argument_exception',
            `The provided expression [${name}] matches an alias, specify the corresponding concrete indices instead.`,
          );
        }
      }
      await deleteIndices(client, deps.indexWriter, targets);
      return result;
    default:
      throw new EsError('illegal_argument_exception', `[aliases_action] unknown field [${type}]`);
  }
}

async function addAlias(
  client: PoolClient,
  catalog: Catalog,
  targets: Catalog['indices'],
  aliases: string[],
  spec: Record<string, unknown>,
): Promise<void> {
  if (spec.must_exist !== undefined)
    throw new EsError('illegal_argument_exception', '[must_exist] is unsupported for [ADD]');
  if (aliases.length === 0) {
    throw new EsError(
      'action_request_validation_exception',
      'Validation Failed: 1: One of [alias] or [aliases] is required;',
    );
  }
  if (targets.length === 0) throw indexNotFound(String(spec.index ?? spec.indices));
  for (const alias of aliases) {
    checkIndexName(alias, 'alias');
    if (catalog.indices.some((i) => i.name === alias)) {
      throw new EsError(
        'invalid_alias_name_exception',
        `Invalid alias name [${alias}]: an index or data stream exists with the same name as the alias`,
        { metadata: { index_uuid: '_na_', index: alias } },
      );
    }
    for (const target of targets) {
      await saveAlias(client, {
        alias,
        indexId: target.indexId,
        isWriteIndex: typeof spec.is_write_index === 'boolean' ? spec.is_write_index : null,
        filter: (spec.filter as Record<string, unknown> | undefined) ?? null,
        indexRouting: (spec.index_routing ?? spec.routing ?? null) as string | null,
        searchRouting: (spec.search_routing ?? spec.routing ?? null) as string | null,
      });
    }
  }
}

async function removeAlias(
  client: PoolClient,
  catalog: Catalog,
  targets: Catalog['indices'],
  aliases: string[],
  spec: Record<string, unknown>,
  result: ActionResult,
): Promise<ActionResult> {
  let removed = 0;
  for (const pattern of aliases) {
    const matching = [
      ...new Set(catalog.aliases.filter((a) => simpleMatch(pattern, a.alias)).map((a) => a.alias)),
    ];
    for (const alias of matching)
      removed += await deleteAlias(
        client,
        alias,
        targets.map((t) => t.indexId),
      );
  }
  if (removed > 0) return result;
  const missing = aliasesMissing(aliases);
  if (spec.must_exist === true) throw missing;
  return { ...result, status: 404, error: missing.toCause() };
}
