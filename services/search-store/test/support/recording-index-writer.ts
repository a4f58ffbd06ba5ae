import type { PoolClient } from 'pg';
import {
  createIndexWriter,
  type DocumentToIndex,
  type CompactingIndexWriter,
  type IndexContext,
  type PreparedDocuments,
} from '../../src/index/index-writer';
import type { StatementQueue } from '../../src/storage/statement-queue';

export interface IndexWriterCall {
  method: 'add' | 'remove' | 'copyIndex';
  indexName?: string;
  docKeys: string[];
  /** Whether the call ran inside an open transaction (what the seam requires). */
  inTransaction: boolean;
}

/**
 * The real IndexWriter, recording every call and whether it ran inside the document write's
 * transaction (what the seam requires).
 */
export function createRecordingIndexWriter(
  inner: CompactingIndexWriter = createIndexWriter(),
): CompactingIndexWriter & { calls: IndexWriterCall[] } {
  const calls: IndexWriterCall[] = [];
  // Inside the write's transaction an xid is already assigned (the index row is locked FOR UPDATE);
  // a lone autocommit statement has none.
  const inTransaction = async (client: PoolClient) => {
    const { rows } = await client.query<{ assigned: boolean }>(
      'SELECT txid_current_if_assigned() IS NOT NULL AS assigned',
    );
    return rows[0]?.assigned === true;
  };
  return {
    calls,
    prepare: inner.prepare?.bind(inner),
    async add(
      client: PoolClient,
      index: IndexContext,
      documents: DocumentToIndex[],
      prepared?: PreparedDocuments,
    ) {
      calls.push({
        method: 'add',
        indexName: index.name,
        docKeys: documents.map((d) => d.docKey),
        inTransaction: await inTransaction(client),
      });
      await inner.add(client, index, documents, prepared);
    },
    async addAlongside(
      client: PoolClient,
      index: IndexContext,
      documents: DocumentToIndex[],
      alongside: (queue: StatementQueue) => Promise<void>,
    ) {
      calls.push({
        method: 'add',
        indexName: index.name,
        docKeys: documents.map((d) => d.docKey),
        inTransaction: await inTransaction(client),
      });
      await inner.addAlongside!(client, index, documents, alongside);
    },
    async remove(client: PoolClient, index: IndexContext, docKeys: string[]) {
      calls.push({
        method: 'remove',
        indexName: index.name,
        docKeys,
        inTransaction: await inTransaction(client),
      });
      await inner.remove(client, index, docKeys);
    },
    async copyIndex(client: PoolClient, fromIndexId: string, toIndexId: string) {
      calls.push({
        method: 'copyIndex',
        docKeys: [fromIndexId, toIndexId],
        inTransaction: await inTransaction(client),
      });
      await inner.copyIndex(client, fromIndexId, toIndexId);
    },
    dropIndex: (client: PoolClient, indexId: string) => inner.dropIndex(client, indexId),
    compactIndex: (client: PoolClient, index: IndexContext, maxNumSegments?: number) =>
      inner.compactIndex(client, index, maxNumSegments),
  };
}
