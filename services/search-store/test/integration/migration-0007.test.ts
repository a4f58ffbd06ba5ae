import { Pool } from 'pg';
import { indexHelpers } from '../index/support/index-fixture';
import { StagedMigrations } from './support/staged-migrations';

describe('migration 0007 (field lengths in the token streams)', () => {
  let pool: Pool;
  let stages: StagedMigrations | undefined;
  afterAll(async () => {
    await pool?.end();
    stages?.remove();
  });

  it('moves each text and keyword length onto its token stream, drops field_lengths, keeps deletes exact', async () => {
    stages = await StagedMigrations.create('migration_0007');
    await stages.runBelow('0007');
    pool = new Pool({ connectionString: stages.databaseUrl, max: 2 });

    // An index as 0006's writer left it: body (text), tag (keyword), n (integer), two documents.
    const mappings = {
      properties: {
        body: { type: 'text' as const },
        tag: { type: 'keyword' as const },
        n: { type: 'integer' as const },
      },
    };
    const { rows } = await pool.query<{ index_id: string }>(
      `INSERT INTO indices (name, uuid, mappings) VALUES ('old', 'old-uuid', $1) RETURNING index_id`,
      [mappings],
    );
    const indexId = rows[0]!.index_id;
    const docs = await pool.query<{ id: string; doc_key: string }>(
      `INSERT INTO documents (index_id, id, source, version, seq_no)
       VALUES ($1, 'd1', '{"body":"alpha the beta","tag":"x","n":[1,2]}', 1, 0), ($1, 'd2', '{"body":"alpha","n":5}', 1, 1)
       RETURNING id, doc_key`,
      [indexId],
    );
    const key = Object.fromEntries(docs.rows.map((r) => [r.id, r.doc_key]));
    await pool.query(
      `INSERT INTO fields (index_id, field_id, path, type) VALUES ($1, 1, 'body', 'text'), ($1, 2, 'tag', 'keyword'), ($1, 3, 'n', 'integer');
       INSERT INTO doc_tokens (index_id, doc_key, field_id, term_ids)
       VALUES ($1, ${key.d1}, 1, '{10,0,11}'), ($1, ${key.d1}, 2, '{20}'), ($1, ${key.d2}, 1, '{10}');
       INSERT INTO field_lengths (index_id, field_id, doc_key, length)
       VALUES ($1, 1, ${key.d1}, 2), ($1, 2, ${key.d1}, 1), ($1, 3, ${key.d1}, 2), ($1, 1, ${key.d2}, 1), ($1, 3, ${key.d2}, 1);
       INSERT INTO doc_values (index_id, field_id, doc_key, num, kw)
       VALUES ($1, 2, ${key.d1}, NULL, 'x'), ($1, 3, ${key.d1}, 1, NULL), ($1, 3, ${key.d1}, 2, NULL), ($1, 3, ${key.d2}, 5, NULL);
       INSERT INTO field_stats (index_id, field_id, doc_count, sum_total_term_freq)
       VALUES ($1, 1, 2, 3), ($1, 2, 1, 1), ($1, 3, 2, 3);`.replaceAll('$1', indexId),
    );

    // 0007 and every migration after it, so that today's writer can delete from the migrated index.
    expect((await stages.runAll())[0]).toBe('0007_lengths_in_doc_tokens');
    const streams = await pool.query(
      'SELECT doc_key, field_id, length FROM doc_tokens WHERE index_id = $1 ORDER BY doc_key, field_id',
      [indexId],
    );
    expect(streams.rows).toEqual([
      { doc_key: key.d1, field_id: 1, length: 2 },
      { doc_key: key.d1, field_id: 2, length: 1 },
      { doc_key: key.d2, field_id: 1, length: 1 },
    ]);
    const gone = await pool.query("SELECT to_regclass('field_lengths') AS t");
    expect(gone.rows).toEqual([{ t: null }]);

    // Deleting d1 subtracts its text and keyword lengths from the streams, its number of values from doc values.
    const fx = indexHelpers(pool);
    await fx.deleteDocs({ indexId, name: 'old', mappings, settings: {} }, ['d1']);
    const stats = await pool.query(
      `SELECT field_id, doc_count::int, sum_total_term_freq::int AS sttf FROM field_stats WHERE index_id = $1 ORDER BY field_id`,
      [indexId],
    );
    expect(stats.rows).toEqual([
      { field_id: 1, doc_count: 1, sttf: 1 },
      { field_id: 2, doc_count: 0, sttf: 0 },
      { field_id: 3, doc_count: 1, sttf: 1 },
    ]);
  });
});
