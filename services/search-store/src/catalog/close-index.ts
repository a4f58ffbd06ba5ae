import type { Pool } from 'pg';
import { EsError } from '@acme/common';
import { lockIndices, saveIndexState, type IndexRecord } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { isDestructiveRequiresName } from './cluster-settings';
import { checkIndexBlocks } from './index-blocks';
import { loadCatalog, resolveIndexExpression, type ResolveOptions } from './index-expression';

/**
 * The setting ES adds to an index it closed after checking every shard
 * (`MetadataIndexStateService.VERIFIED_BEFORE_CLOSE_SETTING`); opening removes it.
 */
export const VERIFIED_BEFORE_CLOSE = 'index.verified_before_close';

/**
 * ES "Close index API": the indices an expression names (wildcards open ones by default) are closed in
 * one transaction. Their rows are locked FOR UPDATE as every write locks them, so a write either
 * commits before the close or sees the index closed. `closed` lists the indices this request closed;
 * those already closed are left out (MetadataIndexStateService skips them).
 */
export async function closeIndices(
  pool: Pool,
  expression: string,
  options: ResolveOptions,
): Promise<{ closed: IndexRecord[] }> {
  return inTransaction(pool, async (client) => {
    // TransportCloseIndexAction: DestructiveOperations.failDestructive on the names as written.
    const parts = expression.split(',');
    if (parts.some((p) => p === '_all' || p.includes('*')) && (await isDestructiveRequiresName(client))) {
      throw new EsError('illegal_argument_exception', 'Wildcard expressions or all indices are not allowed');
    }
    const targets = resolveIndexExpression(await loadCatalog(client), expression, {
      ...options,
      forbidClosed: false,
    });
    const locked = await lockIndices(
      client,
      targets.map((t) => t.indexId),
    );
    // TransportCloseIndexAction#checkBlock: the METADATA_WRITE level.
    checkIndexBlocks(locked, 'metadata_write');
    const closing = locked.filter((index) => !index.closed);
    for (const index of closing) {
      await saveIndexState(client, index.indexId, true, {
        ...index.settings,
        [VERIFIED_BEFORE_CLOSE]: 'true',
      });
    }
    return { closed: closing.sort((a, b) => a.name.localeCompare(b.name)) };
  });
}
