import { Pool, type PoolClient } from 'pg';
import { createTestDatabase, uniqueId } from '@acme/testkit';
import { SEARCH_SCHEMA } from '../../support/search-schema';
import { createIndexWriter, type IndexContext, type IndexWriter } from '../../../src/index/index-writer';
import type { IndexMapping } from '../../../src/mapping/mapping-types';

/** A fresh migrated database, and helpers that write `indices`/`documents` rows directly plus the index writer. */
export interface IndexFixture {
  pool: Pool;
  createIndex(
    mappings: IndexMapping,
    settings?: Record<string, unknown>,
    name?: string,
  ): Promise<IndexContext>;
  /** Index (or replace) documents by _id, as the document store will: documents row + writer, one transaction. */
  putDocs(
    index: IndexContext,
    docs: Record<string, Record<string, unknown>>,
  ): Promise<Record<string, string>>;
  deleteDocs(index: IndexContext, ids: string[]): Promise<void>;
  end(): Promise<void>;
}

export async function createIndexFixture(): Promise<IndexFixture> {
  const databaseUrl = await createTestDatabase('engine', SEARCH_SCHEMA);
  return indexHelpers(new Pool({ connectionString: databaseUrl, max: 4 }));
}

/** The same helpers over an existing pool (the one of a running search-store), with their own writer. */
export function indexHelpers(pool: Pool, writer: IndexWriter = createIndexWriter()): IndexFixture {
  const inTransaction = async <T>(work: (client: PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
  const removeIds = async (client: PoolClient, index: IndexContext, ids: string[]): Promise<void> => {
    const { rows } = await client.query<{ doc_key: string }>(
      'DELETE FROM documents WHERE index_id = $1 AND id = ANY($2::text[]) RETURNING doc_key',
      [index.indexId, ids],
    );
    await writer.remove(
      client,
      index,
      rows.map((r) => r.doc_key),
    );
  };
  return {
    pool,
    async createIndex(mappings, settings = {}, name = uniqueId('idx').toLowerCase()) {
      const { rows } = await pool.query<{ index_id: string }>(
        'INSERT INTO indices (name, uuid, mappings, settings) VALUES ($1, $2, $3, $4) RETURNING index_id',
        [name, uniqueId('uuid'), mappings, settings],
      );
      return { indexId: rows[0]!.index_id, name, mappings, settings };
    },
    putDocs(index, docs) {
      return inTransaction(async (client) => {
        const ids = Object.keys(docs);
        await removeIds(client, index, ids);
        const { rows } = await client.query<{ id: string; doc_key: string }>(
          `INSERT INTO documents (index_id, id, source, version, seq_no)
           SELECT $1, id, source, 1, 0 FROM unnest($2::text[], $3::jsonb[]) AS u(id, source) RETURNING id, doc_key`,
          [index.indexId, ids, ids.map((id) => JSON.stringify(docs[id]))],
        );
        const keys = Object.fromEntries(rows.map((r) => [r.id, r.doc_key]));
        await writer.add(
          client,
          index,
          ids.map((id) => ({ docKey: keys[id]!, source: docs[id]! })),
        );
        return keys;
      });
    },
    deleteDocs(index, ids) {
      return inTransaction((client) => removeIds(client, index, ids));
    },
    end: () => pool.end(),
  };
}
