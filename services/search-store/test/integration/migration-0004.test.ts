import { Pool } from 'pg';
import { indexHelpers } from '../index/support/index-fixture';
import { StagedMigrations } from './support/staged-migrations';

interface PostingRow {
  term: string;
  doc_key: string;
  freq: number;
  norm: number;
  positions: number[] | null;
}

/** An index as 0003's writer left it: 130 documents "w<i> common … common" and a keyword tag. */
async function writeUnder0003(pool: Pool): Promise<{ indexId: string; keys: string[] }> {
  const { rows } = await pool.query<{ index_id: string }>(
    `INSERT INTO indices (name, uuid, mappings) VALUES ('old', 'old-uuid',
       '{"properties":{"body":{"type":"text"},"tag":{"type":"keyword"}}}') RETURNING index_id`,
  );
  const indexId = rows[0]!.index_id;
  const docs = await pool.query<{ doc_key: string }>(
    `INSERT INTO documents (index_id, id, source, version, seq_no)
     SELECT $1, 'd' || i, json_build_object('body', 'w' || i || ' common', 'tag', 't' || (i % 2)), 1, i
     FROM generate_series(0, 129) AS i RETURNING doc_key`,
    [indexId],
  );
  const keys = docs.rows.map((r) => r.doc_key).sort((a, b) => Number(a) - Number(b));
  await pool.query(
    `INSERT INTO fields (index_id, field_id, path, type) VALUES ($1, 1, 'body', 'text'), ($1, 2, 'tag', 'keyword')`,
    [indexId],
  );
  // Terms: common (freq 2 at positions 1 and 3 for even docs: "wN common", a removed stop word, "common"),
  // w<i> at 0, t0/t1 as keyword terms.
  await pool.query(
    `INSERT INTO terms (index_id, field_id, term, term_id, doc_freq, total_term_freq)
     VALUES ($1, 1, 'common', 1000, 130, 195), ($1, 2, 't0', 1001, 65, 65), ($1, 2, 't1', 1002, 65, 65)`,
    [indexId],
  );
  await pool.query(
    `INSERT INTO terms (index_id, field_id, term, term_id, doc_freq, total_term_freq)
     SELECT $1, 1, 'w' || i, 2000 + i, 1, 1 FROM generate_series(0, 129) AS i`,
    [indexId],
  );
  await pool.query(
    `INSERT INTO postings (index_id, term_id, doc_key, freq, norm, positions)
     SELECT $1::bigint, 1000, k, CASE WHEN i % 2 = 0 THEN 2 ELSE 1 END, CASE WHEN i % 2 = 0 THEN 4 ELSE 2 END,
            CASE WHEN i % 2 = 0 THEN ARRAY[1, 3] ELSE ARRAY[1] END
     FROM unnest($2::bigint[]) WITH ORDINALITY AS u(k, n), LATERAL (SELECT (n - 1)::int AS i) x
     UNION ALL
     SELECT $1::bigint, 2000 + i, k, 1, CASE WHEN i % 2 = 0 THEN 4 ELSE 2 END, ARRAY[0]
     FROM unnest($2::bigint[]) WITH ORDINALITY AS u(k, n), LATERAL (SELECT (n - 1)::int AS i) x
     UNION ALL
     SELECT $1::bigint, 1001 + i % 2, k, 1, 1, NULL
     FROM unnest($2::bigint[]) WITH ORDINALITY AS u(k, n), LATERAL (SELECT (n - 1)::int AS i) x`,
    [indexId, keys],
  );
  await pool.query(
    `INSERT INTO doc_terms (index_id, doc_key, term_ids)
     SELECT $1, k, ARRAY[1000, 2000 + (n - 1), 1001 + (n - 1) % 2] FROM unnest($2::bigint[]) WITH ORDINALITY AS u(k, n)`,
    [indexId, keys],
  );
  await pool.query(
    `INSERT INTO field_lengths (index_id, field_id, doc_key, length)
     SELECT $1::bigint, 1, k, CASE WHEN (n - 1) % 2 = 0 THEN 4 ELSE 2 END FROM unnest($2::bigint[]) WITH ORDINALITY AS u(k, n)
     UNION ALL SELECT $1::bigint, 2, k, 1 FROM unnest($2::bigint[]) AS k`,
    [indexId, keys],
  );
  await pool.query(
    `INSERT INTO field_stats (index_id, field_id, doc_count, sum_total_term_freq) VALUES ($1, 1, 130, 390), ($1, 2, 130, 130)`,
    [indexId],
  );
  return { indexId, keys };
}

async function readPostings(pool: Pool, indexId: string): Promise<PostingRow[]> {
  const { rows } = await pool.query<PostingRow>(
    `SELECT t.term, p.doc_key, p.freq, p.norm, CASE WHEN f.type = 'text' THEN p.positions END AS positions
     FROM postings p JOIN terms t USING (index_id, term_id) JOIN fields f USING (index_id, field_id)
     WHERE p.index_id = $1 ORDER BY t.term, p.doc_key`,
    [indexId],
  );
  return rows;
}

describe('migration 0004 (block postings)', () => {
  let pool: Pool;
  let stages: StagedMigrations | undefined;
  afterAll(async () => {
    await pool?.end();
    stages?.remove();
  });

  it('converts postings and positions written under 0003 into blocks and token streams', async () => {
    stages = await StagedMigrations.create('migration_0004');
    await stages.runBelow('0004');
    pool = new Pool({ connectionString: stages.databaseUrl, max: 2 });
    const { indexId, keys } = await writeUnder0003(pool);
    const before = await pool.query<PostingRow>(
      `SELECT t.term, p.doc_key, p.freq, p.norm, p.positions FROM postings p JOIN terms t USING (index_id, term_id)
       WHERE p.index_id = $1 ORDER BY t.term, p.doc_key`,
      [indexId],
    );
    expect(before.rows).toHaveLength(390);

    // Up to 0004 exactly: later migrations have tests of their own.
    expect(await stages.runBelow('0005')).toEqual(['0004_posting_blocks']);
    // The postings view gives back every posting exactly, positions included.
    expect(await readPostings(pool, indexId)).toEqual(before.rows);
    const blocks = await pool.query<{ term_id: string; size: number; base: string; last: string }>(
      `SELECT term_id, cardinality(doc_offsets) AS size, base_doc_key AS base, last_doc_key AS last
       FROM posting_blocks WHERE index_id = $1 AND term_id = 1000 ORDER BY last_doc_key`,
      [indexId],
    );
    expect(blocks.rows).toEqual([
      { term_id: '1000', size: 128, base: keys[0], last: keys[127] },
      { term_id: '1000', size: 2, base: keys[128], last: keys[129] },
    ]);
    // The stop-word gap is a 0 in the token stream; keyword fields keep their term ids.
    const tokens = await pool.query<{ field_id: number; term_ids: string[] }>(
      'SELECT field_id, term_ids FROM doc_tokens WHERE index_id = $1 AND doc_key = $2 ORDER BY field_id',
      [indexId, keys[0]],
    );
    expect(tokens.rows).toEqual([
      { field_id: 1, term_ids: ['2000', '1000', '0', '1000'] },
      { field_id: 2, term_ids: ['1001'] },
    ]);
    const gone = await pool.query("SELECT to_regclass('doc_terms') AS t");
    expect(gone.rows).toEqual([{ t: null }]);

    // The converted index, migrated on to the schema the writer writes, takes writes: a document
    // replaced and one deleted leave exact statistics.
    await stages.runAll();
    const fx = indexHelpers(pool);
    const index = {
      indexId,
      name: 'old',
      mappings: { properties: { body: { type: 'text' as const }, tag: { type: 'keyword' as const } } },
      settings: {},
    };
    await fx.putDocs(index, { d5: { body: 'common common common', tag: 't1' } });
    await fx.deleteDocs(index, ['d0']);
    const stats = await pool.query(
      `SELECT term, doc_freq, total_term_freq::int AS ttf FROM terms WHERE index_id = $1 AND term IN ('common', 'w0', 'w5', 't0', 't1') ORDER BY term`,
      [indexId],
    );
    expect(stats.rows).toEqual([
      { term: 'common', doc_freq: 129, ttf: 195 - 2 - 1 + 3 },
      { term: 't0', doc_freq: 64, ttf: 64 },
      { term: 't1', doc_freq: 65, ttf: 65 },
    ]);
    const common = await pool.query(
      `SELECT sum(octet_length(norms))::int AS docs, count(*)::int AS blocks FROM posting_blocks -- packed (0030)
       WHERE index_id = $1 AND term_id = 1000`,
      [indexId],
    );
    // The replaced document's posting is a block of its own (migration 0026: a batch only adds blocks).
    expect(common.rows).toEqual([{ docs: 129, blocks: 3 }]);
  });
});
