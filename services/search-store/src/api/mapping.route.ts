import { Router, type Request, type Response } from 'express';
import { EsError } from '@acme/common';
import { bodyObject } from '../http/read-body';
import { mergeMappings } from '../mapping/merge-mappings';
import { checkMappingLimits, mappingLimitsOf } from '../mapping/mapping-limits';
import { parseMappingDefinition } from '../mapping/parse-mapping';
import { serializeMapping } from '../mapping/serialize-mapping';
import { lockIndices, saveMappings } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { loadCatalog, resolveIndexExpression } from './index-expression';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { checkIndexBlocks } from './index-blocks';

/** GET and PUT mappings (ES "Get mapping API", "Update mapping API"). */
export function mappingRouter(deps: StoreDeps): Router {
  const router = Router();

  const getMapping = async (req: Request, res: Response) => {
    const catalog = await loadCatalog(deps.pool);
    const indices = resolveIndexExpression(catalog, (req.params.index as string | undefined) ?? '_all');
    checkIndexBlocks(indices, 'metadata_read');
    res.json(Object.fromEntries(indices.map((i) => [i.name, { mappings: serializeMapping(i.mappings) }])));
  };
  const getParams = checkParams(ROUTE_PARAMS.getMapping);
  router.get('/_mapping', getParams, getMapping);
  router.get('/:index/_mapping', getParams, getMapping);

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
  router.put('/:index/_mapping', putParams, putMapping);
  router.post('/:index/_mapping', putParams, putMapping);
  return router;
}
