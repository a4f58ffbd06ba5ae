import { Pool } from 'pg';
import { indexHelpers } from '../index/support/index-fixture';
import { StagedMigrations } from './support/staged-migrations';

describe('migration 0010 (term totals on the last block)', () => {
  let pool: Pool;
  let stages: StagedMigrations | undefined;
  afterAll(async () => {
    await pool?.end();
    stages?.remove();
  });

  it("moves each term's totals onto its last block, serves them through the terms view, keeps writes exact", async () => {
    stages = await StagedMigrations.create('migration_0010');
    await stages.runBelow('0010');
    pool = new Pool({ connectionString: stages.databaseUrl, max: 2 });

    // An index as 0009's writer left it: 'alpha' in three documents over two blocks, 'beta' in one.
    const mappings = { properties: { body: { type: 'text' as const } } };
    const { rows } = await pool.query<{ index_id: string }>(
      `INSERT INTO indices (name, uuid, mappings) VALUES ('old', 'old-uuid', $1) RETURNING index_id`,
      [mappings],
    );
    const indexId = rows[0]!.index_id;
    const docs = await pool.query<{ id: string; doc_key: string }>(
      `INSERT INTO documents (index_id, id, source, version, seq_no)
       VALUES ($1, 'd1', '{"body":"alpha alpha beta"}', 1, 0), ($1, 'd2', '{"body":"alpha"}', 1, 1),
              ($1, 'd3', '{"body":"alpha"}', 1, 2)
       RETURNING id, doc_key`,
      [indexId],
    );
    const key = Object.fromEntries(docs.rows.map((r) => [r.id, Number(r.doc_key)]));
    await pool.query(
      `INSERT INTO fields (index_id, field_id, path, type) VALUES ($1, 1, 'body', 'text');
       INSERT INTO terms (index_id, field_id, term, term_id, doc_freq, total_term_freq)
       VALUES ($1, 1, 'alpha', 101, 3, 4), ($1, 1, 'beta', 102, 1, 1);
       INSERT INTO posting_blocks (index_id, term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms, max_freq, min_norm)
       VALUES ($1, 101, ${key.d1}, ${key.d2}, '{0,${key.d2! - key.d1!}}', '{2,1}', '{3,1}', 2, 1),
              ($1, 101, ${key.d3}, ${key.d3}, '{0}', '{1}', '{1}', 1, 1),
              ($1, 102, ${key.d1}, ${key.d1}, '{0}', '{1}', '{3}', 1, 3);
       INSERT INTO doc_tokens (index_id, doc_key, field_id, length, term_ids)
       VALUES ($1, ${key.d1}, 1, 3, '{101,101,102}'), ($1, ${key.d2}, 1, 1, '{101}'), ($1, ${key.d3}, 1, 1, '{101}');
       INSERT INTO field_stats (index_id, field_id, doc_count, sum_total_term_freq) VALUES ($1, 1, 3, 5);`.replaceAll(
        '$1',
        indexId,
      ),
    );

    expect(await stages.runAll()).toContain('0010_term_totals_on_blocks');
    const view = () =>
      pool.query(
        `SELECT term, term_id::int, doc_freq, total_term_freq::int AS ttf FROM terms WHERE index_id = $1 ORDER BY term`,
        [indexId],
      );
    expect((await view()).rows).toEqual([
      { term: 'alpha', term_id: 101, doc_freq: 3, ttf: 4 },
      { term: 'beta', term_id: 102, doc_freq: 1, ttf: 1 },
    ]);
    // On the last block of each term; the dictionary keeps no statistics of its own.
    const blocks = await pool.query(
      `SELECT term_id::int, base_doc_key::int AS base, term_doc_freq AS df FROM posting_blocks
       WHERE index_id = $1 ORDER BY term_id, base_doc_key`,
      [indexId],
    );
    expect(blocks.rows).toEqual([
      { term_id: 101, base: key.d1, df: 0 },
      { term_id: 101, base: key.d3, df: 3 },
      { term_id: 102, base: key.d1, df: 1 },
    ]);
    const columns = await pool.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'term_dictionary' ORDER BY column_name",
    );
    expect(columns.rows.map((r) => r.column_name)).toEqual(['field_id', 'index_id', 'term', 'term_id']);

    // Deleting d3 drops alpha's last block: the block before it takes the lowered totals; beta goes
    // with d1; a new document adds to alpha's totals on the block it extends.
    const fx = indexHelpers(pool);
    const index = { indexId, name: 'old', mappings, settings: {} };
    await fx.deleteDocs(index, ['d3']);
    expect((await view()).rows).toEqual([
      { term: 'alpha', term_id: 101, doc_freq: 2, ttf: 3 },
      { term: 'beta', term_id: 102, doc_freq: 1, ttf: 1 },
    ]);
    await fx.deleteDocs(index, ['d1']);
    await fx.putDocs(index, { d4: { body: 'alpha gamma' } });
    expect((await view()).rows).toEqual([
      { term: 'alpha', term_id: 101, doc_freq: 2, ttf: 2 },
      { term: 'gamma', term_id: expect.any(Number), doc_freq: 1, ttf: 1 },
    ]);
    const dictionary = await pool.query(
      'SELECT term FROM term_dictionary WHERE index_id = $1 ORDER BY term',
      [indexId],
    );
    expect(dictionary.rows.map((r) => r.term)).toEqual(['alpha', 'gamma']);
  });
});
