import type { Pool } from 'pg';
import { mergeMappings } from '../mapping/merge-mappings';
import { checkMappingLimits, mappingLimitsOf } from '../mapping/mapping-limits';
import type { IndexMapping } from '../mapping/mapping-types';
import { lockIndices, saveMappings } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { checkIndexBlocks } from './index-blocks';
import { CLOSED_ALLOWED, loadCatalog, resolveIndexExpression } from './index-expression';

/**
 * ES "Update mapping API": merges `update` into every index the expression names (none is a 404).
 * Every target is merged first: one conflict leaves all of them unchanged.
 */
export async function putMapping(pool: Pool, expression: string, update: IndexMapping): Promise<void> {
  await inTransaction(pool, async (client) => {
    const catalog = await loadCatalog(client);
    const targets = resolveIndexExpression(catalog, expression, {
      ...CLOSED_ALLOWED,
      allowNoIndices: false,
    });
    const locked = await lockIndices(
      client,
      targets.map((t) => t.indexId),
    );
    checkIndexBlocks(locked, 'metadata_write');
    const merged = locked.map((index) => {
      const mapping = mergeMappings(index.mappings, update);
      // MapperService.merge checks the merged mapping against the index's mapping limits.
      checkMappingLimits(mapping, mappingLimitsOf(index.settings));
      return { index, mapping };
    });
    for (const { index, mapping } of merged) await saveMappings(client, index.indexId, mapping);
  });
}
