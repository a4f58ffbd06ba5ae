import { Pool } from 'pg';
import { createTestDatabase } from '@acme/testkit';
import { findClusterSettings, saveClusterSettings } from '../../src/storage/cluster-settings.repo';
import {
  copyDocumentsForReindex,
  deleteDocumentsByKey,
  findDocuments,
  findReindexConflicts,
  saveDocuments,
} from '../../src/storage/documents.repo';
import { lockIndices, saveNewIndex, type IndexRecord } from '../../src/storage/indices.repo';
import { inRetriedTransaction, inTransaction } from '../../src/storage/queryable';
import { SEARCH_SCHEMA } from '../support/search-schema';

describe('storage repositories on a migrated database', () => {
  let pool: Pool;
  let source: IndexRecord;
  let dest: IndexRecord;
  let verbatim: IndexRecord;
  beforeAll(async () => {
    const url = await createTestDatabase('search_repos', SEARCH_SCHEMA);
    pool = new Pool({ connectionString: url, max: 4 });
    const make = async (name: string) =>
      (await saveNewIndex(pool, {
        name,
        uuid: `${name}-uuid`,
        mappings: {},
        settings: {},
        blocksWrite: false,
      })) as IndexRecord;
    source = await make('source');
    dest = await make('dest');
    verbatim = await make('verbatim');
  });
  afterAll(async () => {
    await pool.end();
  });

  it('refuses a second index with the same name by returning undefined', async () => {
    expect(
      await saveNewIndex(pool, {
        name: 'source',
        uuid: 'other',
        mappings: {},
        settings: {},
        blocksWrite: false,
      }),
    ).toBeUndefined();
  });

  it('saves a batch with fresh, never reused doc keys ascending in batch order and keeps source key order', async () => {
    const keys = await inTransaction(pool, (client) =>
      saveDocuments(client, source.indexId, [
        { id: 'a', source: { z: 1, a: 2 }, version: 1, seqNo: 0, primaryTerm: 1 },
        { id: 'b', source: { b: true }, version: 1, seqNo: 1, primaryTerm: 1 },
      ]),
    );
    expect(BigInt(keys.get('b') as string)).toBeGreaterThan(BigInt(keys.get('a') as string));
    expect([...keys.keys()].sort()).toEqual(['a', 'b']);
    const rows = await findDocuments(pool, source.indexId, ['a', 'b', 'missing']);
    expect(rows.map((r) => [r.id, JSON.stringify(r.source)]).sort()).toEqual([
      ['a', '{"z":1,"a":2}'],
      ['b', '{"b":true}'],
    ]);
    await deleteDocumentsByKey(pool, source.indexId, [keys.get('b') as string]);
    const again = await inTransaction(pool, (client) =>
      saveDocuments(client, source.indexId, [{ id: 'b', source: {}, version: 3, seqNo: 2, primaryTerm: 1 }]),
    );
    expect(BigInt(again.get('b') as string)).toBeGreaterThan(BigInt(keys.get('b') as string));
  });

  it('stores source text verbatim through COPY: whitespace, tabs, newlines and escapes', async () => {
    const text = '{\n\t"q": "say \\"hi\\"\\\\n",\r\n  "path": "C:\\\\dir"  }';
    const keys = await inTransaction(pool, (client) =>
      saveDocuments(client, verbatim.indexId, [
        { id: 'tab\there', source: JSON.parse(text), sourceText: text, version: 1, seqNo: 5, primaryTerm: 1 },
      ]),
    );
    const { rows } = await pool.query<{ id: string; t: string }>(
      'SELECT id, source::text AS t FROM documents WHERE index_id = $1 AND doc_key = $2',
      [verbatim.indexId, keys.get('tab\there')],
    );
    expect(rows).toEqual([{ id: 'tab\there', t: text }]);
  });

  it('copies for reindex in SQL: new keys, +1 version on replace, consecutive seq_nos, create-only conflicts', async () => {
    await inTransaction(pool, (client) =>
      saveDocuments(client, dest.indexId, [
        { id: 'a', source: { old: true }, version: 4, seqNo: 0, primaryTerm: 1 },
      ]),
    );
    expect(await findReindexConflicts(pool, dest.indexId, [source.indexId], undefined)).toEqual([
      { id: 'a', version: 4 },
    ]);
    const copies = await inTransaction(pool, (client) =>
      copyDocumentsForReindex(
        client,
        dest.indexId,
        { sourceIndexIds: [source.indexId], createOnly: false },
        10,
      ),
    );
    expect(
      copies.map((c) => ({ id: c.id, version: c.version, seqNo: c.seqNo, replaced: c.oldDocKey !== null })),
    ).toEqual([
      { id: 'a', version: 5, seqNo: 10, replaced: true },
      { id: 'b', version: 1, seqNo: 11, replaced: false },
    ]);
    const createOnly = await inTransaction(pool, (client) =>
      copyDocumentsForReindex(
        client,
        dest.indexId,
        { sourceIndexIds: [source.indexId], createOnly: true },
        20,
      ),
    );
    expect(createOnly).toEqual([]);
  });

  it('locks index rows in id order and returns their fresh state', async () => {
    const locked = await inTransaction(pool, (client) => lockIndices(client, [dest.indexId, source.indexId]));
    expect(locked.map((i) => i.name)).toEqual(['source', 'dest']);
  });

  it('stores cluster settings as strings and removes those reset with null', async () => {
    await saveClusterSettings(pool, {
      'action.destructive_requires_name': 'false',
      'search.max_buckets': '100',
    });
    await saveClusterSettings(pool, { 'search.max_buckets': null });
    expect(await findClusterSettings(pool)).toEqual({ 'action.destructive_requires_name': 'false' });
  });

  it('reruns a transaction that hit a deadlock, and gives up on other errors at once', async () => {
    let runs = 0;
    const result = await inRetriedTransaction(pool, async () => {
      runs += 1;
      if (runs === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      return 'done';
    });
    expect([result, runs]).toEqual(['done', 2]);
    let failedRuns = 0;
    await expect(
      inRetriedTransaction(pool, async () => {
        failedRuns += 1;
        throw Object.assign(new Error('unique'), { code: '23505' });
      }),
    ).rejects.toThrow('unique');
    expect(failedRuns).toBe(1);
  });
});
