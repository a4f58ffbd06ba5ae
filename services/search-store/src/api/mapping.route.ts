import { type Router, type Request, type Response } from 'express';
import { EsError } from '@acme/common';
import { bodyObject } from '../http/read-body';
import { parseMappingDefinition } from '../mapping/parse-mapping';
import { serializeMapping } from '../mapping/serialize-mapping';
import { getIndices } from '../catalog/get-indices';
import { putMapping } from '../catalog/put-mapping';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/** GET and PUT mappings (ES "Get mapping API", "Update mapping API"). */
export function mappingRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const getMapping = async (req: Request, res: Response) => {
    const { indices } = await getIndices(deps.pool, (req.params.index as string | undefined) ?? '_all');
    res.json(Object.fromEntries(indices.map((i) => [i.name, { mappings: serializeMapping(i.mappings) }])));
  };
  const getParams = checkParams(ROUTE_PARAMS.getMapping);
  route('GET', '/_mapping', 'search.read', 'indices:admin/mappings/get', getParams, getMapping);
  route('GET', '/:index/_mapping', 'search.read', 'indices:admin/mappings/get', getParams, getMapping);

  const putMappingRoute = async (req: Request, res: Response) => {
    const body = bodyObject(req);
    if (body._doc !== undefined) {
      throw new EsError('illegal_argument_exception', 'Types cannot be provided in put mapping requests');
    }
    await putMapping(deps.pool, req.params.index as string, parseMappingDefinition(body));
    res.json({ acknowledged: true });
  };
  const putParams = checkParams(ROUTE_PARAMS.putMapping);
  route('PUT', '/:index/_mapping', 'search.admin', 'indices:admin/mapping/put', putParams, putMappingRoute);
  route('POST', '/:index/_mapping', 'search.admin', 'indices:admin/mapping/put', putParams, putMappingRoute);
  return router;
}
