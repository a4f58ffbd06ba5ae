import { type Router, type Request, type Response } from 'express';
import { EsError } from '@acme/common';
import { bodyObject } from '../http/read-body';
import { mergeMappings } from '../mapping/merge-mappings';
import { checkMappingLimits, mappingLimitsOf } from '../mapping/mapping-limits';
import { parseMappingDefinition } from '../mapping/parse-mapping';
import { serializeMapping } from '../mapping/serialize-mapping';
import { lockIndices, saveMappings } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { loadCatalog, resolveIndexExpression } from '../catalog/index-expression';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { checkIndexBlocks } from '../catalog/index-blocks';
import { scopedRouter } from '../http/scoped-router';

/** GET and PUT mappings (ES "Get mapping API", "Update mapping API"). */
export function mappingRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const getMapping = async (req: Request, res: Response) => {
    const catalog = await loadCatalog(deps.pool);
    const indices = resolveIndexExpression(catalog, (req.params.index as string | undefined) ?? '_all');
    checkIndexBlocks(indices, 'metadata_read');
    res.json(Object.fromEntries(indices.map((i) => [i.name, { mappings: serializeMapping(i.mappings) }])));
  };
  const getParams = checkParams(ROUTE_PARAMS.getMapping);
  route('GET', '/_mapping', 'search.read', 'indices:admin/mappings/get', getParams, getMapping);
  route('GET', '/:index/_mapping', 'search.read', 'indices:admin/mappings/get', getParams, getMapping);

  const putMapping = async (req: Request, res: Response) => {
    const body = bodyObject(req);
    if (body._doc !== undefined) {
      throw new EsError('illegal_argument_exception', 'Types cannot be provided in put mapping requests');
    }
    const update = parseMappingDefinition(body);
    await inTransaction(deps.pool, async (client) => {
      const catalog = await loadCatalog(client);
      const targets = resolveIndexExpression(catalog, req.params.index as string, { allowNoIndices: false });
      const locked = await lockIndices(
        client,
        targets.map((t) => t.indexId),
      );
      checkIndexBlocks(locked, 'metadata_write');
      // Merge every target first: one conflict leaves all of them unchanged.
      const merged = locked.map((index) => {
        const mapping = mergeMappings(index.mappings, update);
        // MapperService.merge checks the merged mapping against the index's mapping limits.
        checkMappingLimits(mapping, mappingLimitsOf(index.settings));
        return { index, mapping };
      });
      for (const { index, mapping } of merged) await saveMappings(client, index.indexId, mapping);
    });
    res.json({ acknowledged: true });
  };
  const putParams = checkParams(ROUTE_PARAMS.putMapping);
  route('PUT', '/:index/_mapping', 'search.admin', 'indices:admin/mapping/put', putParams, putMapping);
  route('POST', '/:index/_mapping', 'search.admin', 'indices:admin/mapping/put', putParams, putMapping);
  return router;
}
