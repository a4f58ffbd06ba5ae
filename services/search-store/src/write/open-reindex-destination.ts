import type { PoolClient } from 'pg';
import { EsError } from '@acme/common';
import { checkIndexBlocks } from '../catalog/index-blocks';
import { checkIndexName } from '../catalog/check-index-name';
import { autoCreateIndex } from '../catalog/create-index';
import { resolveWriteIndex, type Catalog } from '../catalog/index-expression';
import { lockIndices, type IndexRecord } from '../storage/indices.repo';

/**
 * The reindex destination, locked for the copy: the write index of `destName`, or a new index of that
 * name auto-created (its matching index template applies; the source mapping is not copied). Its write-level
 * blocks refuse the reindex as they refuse a bulk.
 */
export async function openReindexDestination(
  client: PoolClient,
  catalog: Catalog,
  destName: string,
): Promise<IndexRecord> {
  let dest = resolveWriteIndex(catalog, destName);
  if (!dest) {
    checkIndexName(destName);
    dest = await autoCreateIndex(client, destName);
  }
  if (!dest) throw new EsError('exception', 'reindex destination could not be created');
  const [locked] = await lockIndices(client, [dest.indexId]);
  if (!locked) throw new EsError('exception', 'reindex destination vanished');
  checkIndexBlocks(
    [
      {
        name: locked.name,
        settings: {
          ...locked.settings,
          ...(locked.blocksWrite ? { 'index.blocks.write': 'true' } : {}),
        },
      },
    ],
    'write',
  );
  return locked;
}
