import { type Router, type Request, type Response } from 'express';
import { checkParams } from '../http/check-params';
import { scopedRouter } from '../http/scoped-router';
import { multiGet } from '../write/multi-get';
import { parseMget, type MgetRequestItem } from './parse-mget';
import { renderFoundDocument } from './render-document';
import { storedFieldsOfDocument } from '../search/hits/stored-field-values';
import { ROUTE_PARAMS } from './route-params';
import type { StoreDeps } from './store-deps';

/**
 * GET|POST /_mget and /<index>/_mget (ES "Multi get API"): always 200 with `docs`, each item as GET
 * _doc answers it, or `{_index, _id, error}` for its own failure (a missing index, a read block).
 * `realtime`, `refresh`, `routing` and `preference` are accepted: every write is visible at once and
 * there is one shard.
 */
export function mgetRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  const mget = async (req: Request, res: Response) => {
    const items = parseMget(req.body, req.params.index as string | undefined, req.query);
    const results = await multiGet(deps.pool, items);
    res.json({ docs: items.map((item, i) => renderItem(item, results[i] as (typeof results)[number])) });
  };
  const params = checkParams(ROUTE_PARAMS.mget);
  route(['GET', 'POST'], '/_mget', 'search.read', 'indices:data/read/mget', params, mget);
  route(['GET', 'POST'], '/:index/_mget', 'search.read', 'indices:data/read/mget', params, mget);
  return router;
}

function renderItem(item: MgetRequestItem, result: Awaited<ReturnType<typeof multiGet>>[number]): unknown {
  if (!result.ok) return { _index: item.index, _id: item.id, error: result.error.toBody().error };
  const { index, doc } = result;
  if (!doc) return { _index: index.name, _id: item.id, found: false };
  const fields = item.storedFields ? storedFieldsOfDocument(index, doc, item.storedFields) : undefined;
  return renderFoundDocument(index.name, doc, item.source, fields);
}
