import type { PoolClient } from 'pg';
import type { IndexWriter } from '../index/index-writer';
import { findDocKeys } from '../storage/documents.repo';
import { deleteIndicesById, lockIndices, type IndexRecord } from '../storage/indices.repo';

/** An IndexWriter may offer a set-based drop of a whole index; otherwise every doc key is removed. */
interface DroppingIndexWriter extends IndexWriter {
  dropIndex?(client: PoolClient, indexId: string): Promise<void>;
}

/**
 * Deletes indices with everything they own. Documents and aliases go by ON DELETE CASCADE; the
 * inverted index is the engine's, so it is cleared through the IndexWriter seam in the same
 * transaction.
 */
export async function deleteIndices(
  client: PoolClient,
  writer: IndexWriter,
  indices: IndexRecord[],
): Promise<void> {
  const dropping = writer as DroppingIndexWriter;
  // Wait for in-flight writes to these indices, so no document slips in after its postings are cleared.
  await lockIndices(
    client,
    indices.map((i) => i.indexId),
  );
  for (const index of indices) {
    if (dropping.dropIndex) await dropping.dropIndex(client, index.indexId);
    else {
      const docKeys = await findDocKeys(client, index.indexId);
      if (docKeys.length > 0) {
        await writer.remove(
          client,
          { indexId: index.indexId, name: index.name, mappings: index.mappings, settings: index.settings },
          docKeys,
        );
      }
    }
  }
  await deleteIndicesById(
    client,
    indices.map((i) => i.indexId),
  );
}
