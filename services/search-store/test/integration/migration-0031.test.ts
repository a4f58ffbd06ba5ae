import { Client as EsClient } from 'es8';
import { Pool } from 'pg';
import { StagedMigrations } from './support/staged-migrations';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';

const hitIds = (result: { hits: { hits: { _id?: string | null }[] } }) => result.hits.hits.map((h) => h._id);

/** doc_values' indexes: name → the columns of its definition and its predicate. */
async function docValueIndexes(pool: Pool): Promise<Record<string, string>> {
  const { rows } = await pool.query<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'doc_values' ORDER BY indexname",
  );
  return Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef.replace(/^.* USING btree /, '')]));
}

describe('migration 0031 (doc_values indexes deduplicated)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('keys doc_values_doc and doc_values_kw without the unique tail; sort, filters, scripts and deletes read them', async () => {
    const stages = await StagedMigrations.create('migration_0031');
    cleanup.push(() => stages.remove());
    await stages.runBelow('0031');
    const pool = new Pool({ connectionString: stages.databaseUrl, max: 2 });
    cleanup.push(() => pool.end());
    expect(await docValueIndexes(pool)).toEqual({
      doc_values_doc: '(index_id, doc_key, field_id)',
      doc_values_kw: '(index_id, field_id, kw, doc_key) WHERE (kw IS NOT NULL)',
      doc_values_num: '(index_id, field_id, num, doc_key) WHERE (num IS NOT NULL)',
    });
    // Rows written before 0031 (the table has no foreign keys): they stay, and the new indexes hold them.
    await pool.query(
      `INSERT INTO doc_values (index_id, field_id, doc_key, num, kw)
       SELECT 999, 1 + (k % 2), k, CASE WHEN k % 2 = 0 THEN k END, CASE WHEN k % 2 = 1 THEN 'v' || (k % 3) END
       FROM generate_series(1, 600) AS k`,
    );

    expect((await stages.runAll())[0]).toBe('0031_doc_values_deduplicated_indexes');
    expect(await docValueIndexes(pool)).toEqual({
      doc_values_doc: '(index_id, doc_key)',
      doc_values_kw: '(index_id, field_id, kw) WHERE (kw IS NOT NULL)',
      doc_values_num: '(index_id, field_id, num, doc_key) WHERE (num IS NOT NULL)',
    });
    // The new keys repeat, so B-tree deduplication stores the 300 keyword rows as three posting lists.
    await pool.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
    const { rows: kwPages } = await pool.query<{ items: number; tids: number }>(
      `SELECT sum(live_items)::int AS items FROM generate_series(1, (pg_relation_size('doc_values_kw') / 8192)::int - 1) p,
              bt_page_stats('doc_values_kw', p) s WHERE s.type = 'l'`,
    );
    expect(kwPages[0]!.items).toBe(3);
    const { rows: kept } = await pool.query(
      "SELECT count(*)::int AS n, count(DISTINCT kw)::int AS kws FROM doc_values WHERE index_id = 999 AND kw IS NOT NULL AND kw >= 'v1'",
    );
    expect(kept).toEqual([{ n: 200, kws: 2 }]);

    // Every reader of the row-wise doc values, through the API on the migrated schema.
    const store: RunningSearchStore = await startSearchStore({}, { databaseUrl: stages.databaseUrl });
    cleanup.push(() => store.stop());
    const es = new EsClient({ node: store.url });
    cleanup.push(() => es.close());
    await es.indices.create({
      index: 'dv',
      mappings: {
        properties: { tag: { type: 'keyword' }, n: { type: 'integer' }, labels: { type: 'flattened' } },
      },
    });
    await es.bulk({
      index: 'dv',
      refresh: true,
      operations: [
        { index: { _id: 'a' } },
        { tag: 'pear', n: 3, labels: { color: 'red' } },
        { index: { _id: 'b' } },
        { tag: ['apple', 'zucchini'], n: 1 },
        { index: { _id: 'c' } },
        { tag: 'melon', n: 2, labels: { color: 'blue' } },
      ],
    });
    // Sort: a document's values by its key (doc_values_doc), min for asc and max for desc.
    const sorted = (order: 'asc' | 'desc') =>
      es.search({ index: 'dv', sort: [{ tag: { order } }], query: { match_all: {} } });
    expect(hitIds(await sorted('asc'))).toEqual(['b', 'c', 'a']);
    expect(hitIds(await sorted('desc'))).toEqual(['b', 'a', 'c']);
    // Keyword range and prefix (doc_values_kw), numeric range (doc_values_num), flattened exists.
    expect(
      hitIds(await es.search({ index: 'dv', query: { range: { tag: { gte: 'm', lt: 'q' } } }, sort: ['n'] })),
    ).toEqual(['c', 'a']);
    expect(
      hitIds(await es.search({ index: 'dv', query: { range: { n: { gte: 2 } } }, sort: ['n'] })),
    ).toEqual(['c', 'a']);
    expect(
      hitIds(await es.search({ index: 'dv', query: { exists: { field: 'labels.color' } }, sort: ['n'] })),
    ).toEqual(['c', 'a']);
    // A script reads every value of a document (findDocValues).
    const scripted = await es.search({
      index: 'dv',
      query: { ids: { values: ['b'] } },
      script_fields: { tags: { script: { source: "doc['tag'].size()" } } },
    });
    expect(scripted.hits.hits[0]!.fields).toEqual({ tags: [2] });
    // A delete removes the document's rows (by index_id and doc_key), and only those.
    const rowsOf = async () =>
      (
        await pool.query<{ id: string; n: number }>(
          `SELECT d.id, count(v.*)::int AS n FROM documents d JOIN indices i USING (index_id)
             LEFT JOIN doc_values v ON v.index_id = d.index_id AND v.doc_key = d.doc_key
            WHERE i.name = 'dv' GROUP BY d.id ORDER BY d.id`,
        )
      ).rows;
    const before = await rowsOf();
    expect(before.find((r) => r.id === 'b')).toEqual({ id: 'b', n: 3 });
    await es.delete({ index: 'dv', id: 'b', refresh: true });
    expect(await rowsOf()).toEqual(before.filter((r) => r.id !== 'b'));
    const { rows: orphans } = await pool.query(
      `SELECT count(*)::int AS n FROM doc_values v JOIN indices i USING (index_id)
        WHERE i.name = 'dv' AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.index_id = v.index_id AND d.doc_key = v.doc_key)`,
    );
    expect(orphans).toEqual([{ n: 0 }]);
    expect(hitIds(await sorted('asc'))).toEqual(['c', 'a']);
  });
});
