import type { Pool } from 'pg';
import { lockIndices, saveIndexState, type IndexRecord } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { VERIFIED_BEFORE_CLOSE } from './close-index';
import { checkIndexBlocks } from './index-blocks';
import { loadCatalog, resolveIndexExpression, type ResolveOptions } from './index-expression';

/**
 * ES "Open index API": the indices an expression names (wildcards closed ones by default, as
 * OpenIndexRequest's options) are opened in one transaction; opening an open index is a no-op.
 * Returns the indices reached.
 */
export async function openIndices(
  pool: Pool,
  expression: string,
  options: ResolveOptions,
): Promise<IndexRecord[]> {
  return inTransaction(pool, async (client) => {
    const targets = resolveIndexExpression(await loadCatalog(client), expression, {
      ...options,
      forbidClosed: false,
    });
    const locked = await lockIndices(
      client,
      targets.map((t) => t.indexId),
    );
    // TransportOpenIndexAction#checkBlock: the METADATA_WRITE level.
    checkIndexBlocks(locked, 'metadata_write');
    for (const index of locked.filter((i) => i.closed)) {
      const settings = Object.entries(index.settings).filter(([key]) => key !== VERIFIED_BEFORE_CLOSE);
      await saveIndexState(client, index.indexId, false, Object.fromEntries(settings));
    }
    return locked;
  });
}
