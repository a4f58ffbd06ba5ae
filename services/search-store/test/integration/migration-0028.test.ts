import { Client as EsClient } from 'es8';
import { Pool } from 'pg';
import { StagedMigrations } from './support/staged-migrations';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';

/**
 * Rows that disagree with a recount, per check (all zero when the index is consistent): each term's
 * totals (the `terms` view) against its blocks; each posting's freq against the occurrences of its
 * term in the document's token stream (the forward index delete and replace subtract); field_stats
 * against the streams' lengths.
 */
async function recount(pool: Pool, indexId: string): Promise<Record<string, number>> {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT
       (SELECT count(*) FROM terms t
          LEFT JOIN (SELECT term_id, count(*) AS df, sum(freq) AS ttf
                     FROM postings WHERE index_id = $1 GROUP BY term_id) p USING (term_id)
         WHERE t.index_id = $1 AND (t.doc_freq <> coalesce(p.df, 0) OR t.total_term_freq <> coalesce(p.ttf, 0))) AS terms,
       (SELECT count(*) FROM (
          SELECT p.term_id, p.doc_key, p.freq FROM postings p WHERE p.index_id = $1) p
          FULL JOIN (
          SELECT x.term_id::int8 AS term_id, d.doc_key, count(*) AS freq
          FROM doc_tokens d, unnest(d.term_ids) AS x(term_id)
          WHERE d.index_id = $1 AND x.term_id <> 0 GROUP BY 1, 2) s USING (term_id, doc_key)
         WHERE p.freq IS DISTINCT FROM s.freq) AS postings,
       (SELECT count(*) FROM (SELECT field_id, doc_count, sum_total_term_freq FROM field_stats WHERE index_id = $1) s
          FULL JOIN (SELECT field_id, count(*) AS c, sum(length) AS l FROM doc_tokens WHERE index_id = $1 GROUP BY field_id) r
          USING (field_id)
         WHERE coalesce(s.doc_count, 0) <> coalesce(r.c, 0) OR coalesce(s.sum_total_term_freq, 0) <> coalesce(r.l, 0)) AS fields`,
    [indexId],
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
}

const hitIds = (result: { hits: { hits: { _id?: string | null }[] } }) =>
  result.hits.hits.map((h) => h._id).sort();

describe('migration 0028 (token streams as int4[])', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('converts bigint streams in place; phrase, highlight, explain, replace and delete read them', async () => {
    const stages = await StagedMigrations.create('migration_0028');
    cleanup.push(() => stages.remove());
    await stages.runBelow('0028');
    const pool = new Pool({ connectionString: stages.databaseUrl, max: 2 });
    cleanup.push(() => pool.end());

    // An index as the writer before 0028 left it: body (text) and tag (keyword), two documents,
    // term ids 101.. (body) and 201.. (tag), streams as bigint[].
    const mappings = { properties: { body: { type: 'text' }, tag: { type: 'keyword' } } };
    const { rows } = await pool.query<{ index_id: string }>(
      `INSERT INTO indices (name, uuid, mappings, max_seq_no) VALUES ('old', 'old-uuid', $1, 1) RETURNING index_id`,
      [mappings],
    );
    const indexId = rows[0]!.index_id;
    const docs = await pool.query<{ id: string; doc_key: string }>(
      `INSERT INTO documents (index_id, id, source, version, seq_no)
       VALUES ($1, 'd1', '{"body":"alpha beta alpha gamma","tag":"x"}', 1, 0), ($1, 'd2', '{"body":"beta alpha","tag":"y"}', 1, 1)
       RETURNING id, doc_key`,
      [indexId],
    );
    const key = Object.fromEntries(docs.rows.map((r) => [r.id, Number(r.doc_key)]));
    const gap = key.d2! - key.d1!;
    await pool.query(
      `INSERT INTO fields (index_id, field_id, path, type) VALUES ($1, 1, 'body', 'text'), ($1, 2, 'tag', 'keyword');
       INSERT INTO term_dictionary (index_id, field_id, term, term_id)
       VALUES ($1, 1, 'alpha', 101), ($1, 1, 'beta', 102), ($1, 1, 'gamma', 103), ($1, 2, 'x', 201), ($1, 2, 'y', 202);
       INSERT INTO posting_blocks (index_id, term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms,
                                   max_freq, min_norm, term_doc_freq, term_total_freq, small_run)
       VALUES ($1, 101, ${key.d1}, ${key.d2}, '{0,${gap}}', '{2,1}', '{4,2}', 2, 2, 2, 3, 1),
              ($1, 102, ${key.d1}, ${key.d2}, '{0,${gap}}', '{1,1}', '{4,2}', 1, 2, 2, 2, 1),
              ($1, 103, ${key.d1}, ${key.d1}, '{0}', '{1}', '{4}', 1, 4, 1, 1, 1),
              ($1, 201, ${key.d1}, ${key.d1}, '{0}', '{1}', '{1}', 1, 1, 1, 1, 1),
              ($1, 202, ${key.d2}, ${key.d2}, '{0}', '{1}', '{1}', 1, 1, 1, 1, 1);
       INSERT INTO doc_tokens (index_id, doc_key, field_id, length, term_ids)
       VALUES ($1, ${key.d1}, 1, 4, '{101,102,101,103}'), ($1, ${key.d2}, 1, 2, '{102,101}'),
              ($1, ${key.d1}, 2, 1, '{201}'), ($1, ${key.d2}, 2, 1, '{202}');
       INSERT INTO doc_values (index_id, field_id, doc_key, num, kw) VALUES ($1, 2, ${key.d1}, NULL, 'x'), ($1, 2, ${key.d2}, NULL, 'y');
       INSERT INTO field_stats (index_id, field_id, doc_count, sum_total_term_freq) VALUES ($1, 1, 2, 6), ($1, 2, 2, 2);
       SELECT setval('term_id_seq', 300);
       SELECT setval(pg_get_serial_sequence('fields', 'field_id'), 2);`.replaceAll('$1', indexId),
    );

    expect((await stages.runAll())[0]).toBe('0028_int4_token_streams');
    const converted = await pool.query(
      `SELECT doc_key::int, field_id, term_ids, pg_typeof(term_ids)::text AS type FROM doc_tokens
       WHERE index_id = $1 ORDER BY field_id, doc_key`,
      [indexId],
    );
    expect(converted.rows).toEqual([
      { doc_key: key.d1, field_id: 1, term_ids: [101, 102, 101, 103], type: 'integer[]' },
      { doc_key: key.d2, field_id: 1, term_ids: [102, 101], type: 'integer[]' },
      { doc_key: key.d1, field_id: 2, term_ids: [201], type: 'integer[]' },
      { doc_key: key.d2, field_id: 2, term_ids: [202], type: 'integer[]' },
    ]);
    // The SQL path's row-per-posting view still derives positions from the streams.
    const viewed = await pool.query(
      `SELECT doc_key::int, freq, positions FROM postings WHERE index_id = $1 AND term_id = 101 ORDER BY doc_key`,
      [indexId],
    );
    expect(viewed.rows).toEqual([
      { doc_key: key.d1, freq: 2, positions: [0, 2] },
      { doc_key: key.d2, freq: 1, positions: [1] },
    ]);
    const sequence = await pool.query(
      "SELECT data_type FROM information_schema.sequences WHERE sequence_name = 'term_id_seq'",
    );
    expect(sequence.rows).toEqual([{ data_type: 'integer' }]);

    const store: RunningSearchStore = await startSearchStore({}, { databaseUrl: stages.databaseUrl });
    cleanup.push(() => store.stop());
    const es = new EsClient({ node: store.url });
    cleanup.push(() => es.close());
    expect(
      hitIds(await es.search({ index: 'old', query: { match_phrase: { body: 'alpha gamma' } } })),
    ).toEqual(['d1']);
    expect(
      hitIds(await es.search({ index: 'old', query: { match_phrase: { body: 'beta alpha' } } })),
    ).toEqual(['d1', 'd2']);
    expect(
      hitIds(await es.search({ index: 'old', query: { match_phrase: { body: 'gamma alpha' } } })),
    ).toEqual([]);
    expect(
      hitIds(await es.search({ index: 'old', query: { match_phrase_prefix: { body: 'alpha gam' } } })),
    ).toEqual(['d1']);
    const explained = await es.search({
      index: 'old',
      explain: true,
      query: { match_phrase: { body: 'alpha gamma' } },
      highlight: { fields: { body: {} } },
    });
    const hit = explained.hits.hits[0]!;
    expect(hit._explanation?.value).toBeCloseTo(hit._score!, 5);
    // The plain highlighter marks every query term, in or out of the phrase (its own behaviour).
    expect(hit.highlight).toEqual({ body: ['<em>alpha</em> beta <em>alpha</em> <em>gamma</em>'] });

    // Replace d2 (new terms and an old one), delete d1: what they subtract comes from the int4 streams.
    await es.index({
      index: 'old',
      id: 'd2',
      document: { body: 'gamma delta gamma', tag: 'x' },
      refresh: true,
    });
    expect(await recount(pool, indexId)).toEqual({ terms: 0, postings: 0, fields: 0 });
    await es.delete({ index: 'old', id: 'd1', refresh: true });
    expect(await recount(pool, indexId)).toEqual({ terms: 0, postings: 0, fields: 0 });
    const left = await pool.query(
      'SELECT term, doc_freq, total_term_freq::int FROM terms WHERE index_id = $1 ORDER BY term',
      [indexId],
    );
    expect(left.rows).toEqual([
      { term: 'delta', doc_freq: 1, total_term_freq: 1 },
      { term: 'gamma', doc_freq: 1, total_term_freq: 2 },
      { term: 'x', doc_freq: 1, total_term_freq: 1 },
    ]);
    expect(
      hitIds(await es.search({ index: 'old', query: { match_phrase: { body: 'delta gamma' } } })),
    ).toEqual(['d2']);
  });

  it('writes and reads term ids at the top of int4, and refuses one past it when it is drawn', async () => {
    const store = await startSearchStore();
    cleanup.push(() => store.stop());
    const es = new EsClient({ node: store.url });
    cleanup.push(() => es.close());
    await store.pool.query("SELECT setval('term_id_seq', 2147483000)");
    await es.indices.create({ index: 'top', mappings: { properties: { body: { type: 'text' } } } });
    await es.bulk({
      index: 'top',
      refresh: true,
      operations: [
        { index: { _id: 'a' } },
        { body: 'one two three two' },
        { index: { _id: 'b' } },
        { body: ['three one', 'two'] },
      ],
    });
    const { rows } = await store.pool.query<{ index_id: string; low: string }>(
      "SELECT t.index_id, min(t.term_id) AS low FROM terms t JOIN indices i USING (index_id) WHERE i.name = 'top' GROUP BY 1",
    );
    expect(Number(rows[0]!.low)).toBeGreaterThan(2147483000);
    const indexId = rows[0]!.index_id;
    expect(hitIds(await es.search({ index: 'top', query: { match_phrase: { body: 'two three' } } }))).toEqual(
      ['a'],
    );
    // The values of an array are 100 positions apart (position_increment_gap): no phrase across them.
    expect(hitIds(await es.search({ index: 'top', query: { match_phrase: { body: 'one two' } } }))).toEqual([
      'a',
    ]);
    const explained = await es.explain({
      index: 'top',
      id: 'b',
      query: { match_phrase: { body: 'three one' } },
    });
    expect(explained.matched).toBe(true);
    await es.index({ index: 'top', id: 'a', document: { body: 'four one' }, refresh: true });
    expect(await recount(store.pool, indexId)).toEqual({ terms: 0, postings: 0, fields: 0 });
    await es.delete({ index: 'top', id: 'b', refresh: true });
    expect(await recount(store.pool, indexId)).toEqual({ terms: 0, postings: 0, fields: 0 });
    expect(hitIds(await es.search({ index: 'top', query: { match_phrase: { body: 'four one' } } }))).toEqual([
      'a',
    ]);

    // The sequence is int4 now: the id after its last is refused as it is drawn, and nothing is stored.
    await store.pool.query("SELECT setval('term_id_seq', 2147483647)");
    await expect(
      es.bulk({ index: 'top', refresh: true, operations: [{ index: { _id: 'c' } }, { body: 'five' }] }),
    ).rejects.toMatchObject({ meta: { statusCode: 500 } });
    expect((await es.count({ index: 'top' })).count).toBe(1);
    expect(await recount(store.pool, indexId)).toEqual({ terms: 0, postings: 0, fields: 0 });
  });

  it('refuses to convert term ids that would not fit an int4', async () => {
    const stages = await StagedMigrations.create('migration_0028_wide');
    cleanup.push(() => stages.remove());
    await stages.runBelow('0028');
    const pool = new Pool({ connectionString: stages.databaseUrl, max: 1 });
    cleanup.push(() => pool.end());
    await pool.query("SELECT setval('term_id_seq', 2147483648)");
    await expect(stages.runAll()).rejects.toThrow(/term ids beyond int4/);
    const type = await pool.query(
      "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'doc_tokens'::regclass AND attname = 'term_ids'",
    );
    expect(type.rows).toEqual([{ t: 'bigint[]' }]);
  });
});
