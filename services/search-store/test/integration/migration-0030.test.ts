import { Client as EsClient } from 'es8';
import { Pool } from 'pg';
import { StagedMigrations } from './support/staged-migrations';
import { intToByte4 } from '../../src/index/small-float';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';

/** Terms whose totals disagree with their postings, and postings whose freq disagrees with the token streams. */
async function recount(pool: Pool, indexId: string): Promise<Record<string, number>> {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT
       (SELECT count(*) FROM terms t
          LEFT JOIN (SELECT term_id, count(*) AS df, sum(freq) AS ttf FROM postings WHERE index_id = $1
                     GROUP BY term_id) p USING (term_id)
         WHERE t.index_id = $1 AND (t.doc_freq <> coalesce(p.df, 0) OR t.total_term_freq <> coalesce(p.ttf, 0))) AS terms,
       (SELECT count(*) FROM (SELECT term_id, doc_key, freq FROM postings WHERE index_id = $1) p
          FULL JOIN (
          SELECT x.term_id::int8 AS term_id, d.doc_key, count(*) AS freq
          FROM doc_tokens d, unnest(d.term_ids) AS x(term_id)
          WHERE d.index_id = $1 AND x.term_id <> 0 GROUP BY 1, 2) s USING (term_id, doc_key)
         WHERE p.freq IS DISTINCT FROM s.freq) AS postings`,
    [indexId],
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
}

const hitIds = (result: { hits: { hits: { _id?: string | null }[] } }) =>
  result.hits.hits.map((h) => h._id).sort();

describe('migration 0030 (packed posting blocks)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('packs int arrays into bytea at each block’s widths; the view, probes, fast path and deletes read them', async () => {
    const stages = await StagedMigrations.create('migration_0030');
    cleanup.push(() => stages.remove());
    await stages.runBelow('0030');
    const pool = new Pool({ connectionString: stages.databaseUrl, max: 2 });
    cleanup.push(() => pool.end());

    // An index as the writer before 0030 left it. d3 is 100,000 keys after d1 (3-byte offsets in alpha's
    // block) and holds alpha 300 times (2-byte freqs there); beta's and gamma's blocks take 1 byte each.
    const mappings = { properties: { body: { type: 'text' } } };
    const { rows } = await pool.query<{ index_id: string }>(
      `INSERT INTO indices (name, uuid, mappings, max_seq_no) VALUES ('old', 'old-uuid', $1, 2) RETURNING index_id`,
      [mappings],
    );
    const indexId = rows[0]!.index_id;
    const long = intToByte4(300);
    await pool.query(
      `INSERT INTO documents (index_id, doc_key, id, source, version, seq_no)
       VALUES ($1, 10, 'd1', '{"body":"alpha beta alpha gamma"}', 1, 0), ($1, 20, 'd2', '{"body":"beta alpha"}', 1, 1),
              ($1, 100010, 'd3', '{"body":"${'alpha '.repeat(300).trim()}"}', 1, 2);
       SELECT setval('doc_key_seq', 200000);
       INSERT INTO fields (index_id, field_id, path, type) VALUES ($1, 1, 'body', 'text');
       INSERT INTO term_dictionary (index_id, field_id, term, term_id)
       VALUES ($1, 1, 'alpha', 101), ($1, 1, 'beta', 102), ($1, 1, 'gamma', 103);
       INSERT INTO posting_blocks (index_id, term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms,
                                   max_freq, min_norm, term_doc_freq, term_total_freq, small_run)
       VALUES ($1, 101, 10, 100010, '{0,10,100000}', '{2,1,300}', '{4,2,${long}}', 300, 2, 3, 303, 1),
              ($1, 102, 10, 20, '{0,10}', '{1,1}', '{4,2}', 1, 2, 2, 2, 1),
              ($1, 103, 10, 10, '{0}', '{1}', '{4}', 1, 4, 1, 1, 1);
       INSERT INTO doc_tokens (index_id, doc_key, field_id, length, term_ids)
       VALUES ($1, 10, 1, 4, '{101,102,101,103}'), ($1, 20, 1, 2, '{102,101}'),
              ($1, 100010, 1, 300, array_fill(101, ARRAY[300]));
       INSERT INTO field_stats (index_id, field_id, doc_count, sum_total_term_freq) VALUES ($1, 1, 3, 306);
       SELECT setval('term_id_seq', 300);
       SELECT setval(pg_get_serial_sequence('fields', 'field_id'), 1);`.replaceAll('$1', indexId),
    );
    const viewed = () =>
      pool.query(
        `SELECT term_id::int, doc_key::int, freq, norm, positions FROM postings WHERE index_id = $1
         ORDER BY term_id, doc_key`,
        [indexId],
      );
    const before = (await viewed()).rows;
    expect(before).toHaveLength(6);

    expect((await stages.runAll())[0]).toBe('0030_packed_posting_blocks');
    const packed = await pool.query(
      `SELECT term_id::int, encode(doc_offsets, 'hex') AS offsets, encode(freqs, 'hex') AS freqs,
              encode(norms, 'hex') AS norms, pg_typeof(doc_offsets)::text AS type
       FROM posting_blocks WHERE index_id = $1 ORDER BY term_id`,
      [indexId],
    );
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    expect(packed.rows).toEqual([
      {
        term_id: 101,
        offsets: '00000000000a0186a0',
        freqs: '00020001012c',
        norms: `0402${hex(long)}`,
        type: 'bytea',
      },
      { term_id: 102, offsets: '000a', freqs: '0101', norms: '0402', type: 'bytea' },
      { term_id: 103, offsets: '00', freqs: '01', norms: '04', type: 'bytea' },
    ]);
    // The merge's candidates: blocks whose run is a multiple of MERGE_AT only.
    const predicate = await pool.query(
      "SELECT pg_get_expr(indpred, indrelid) AS p FROM pg_index WHERE indexrelid = 'posting_blocks_merge_candidates'::regclass",
    );
    expect(predicate.rows).toEqual([{ p: '((((small_run)::integer % 8) = 0) AND (small_run > 0))' }]);
    // ... and the merge's candidate query (segment-merge.ts, at MERGE_AT) is answered from it.
    // (Three rows: a sequential scan unless told otherwise; the question is whether the index applies.)
    const explaining = await pool.connect();
    await explaining.query('BEGIN');
    await explaining.query('SET LOCAL enable_seqscan = off');
    const plan = await explaining.query(
      `EXPLAIN SELECT DISTINCT ON (term_id) term_id FROM posting_blocks
       WHERE index_id = $1 AND small_run % 8 = 0 AND small_run > 0 AND small_run >= 8 ORDER BY term_id, base_doc_key`,
      [indexId],
    );
    await explaining.query('COMMIT');
    explaining.release();
    expect(plan.rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n')).toContain(
      'posting_blocks_merge_candidates',
    );
    // The SQL path's row-per-posting view reads the same postings (and positions) as before.
    expect((await viewed()).rows).toEqual(before);

    const store: RunningSearchStore = await startSearchStore({}, { databaseUrl: stages.databaseUrl });
    cleanup.push(() => store.stop());
    const es = new EsClient({ node: store.url });
    cleanup.push(() => es.close());
    // Relevance match (the fast path decodes the blocks in Node), explained by the SQL path's probes:
    // the same scores.
    const matched = await es.search({ index: 'old', query: { match: { body: 'alpha' } } });
    expect(matched.hits.hits.map((h) => h._id)).toEqual(['d3', 'd1', 'd2']);
    for (const hit of matched.hits.hits) {
      const explained = await es.explain({ index: 'old', id: hit._id!, query: { match: { body: 'alpha' } } });
      expect(explained.explanation?.value).toBeCloseTo(hit._score!, 5);
    }
    expect(
      hitIds(
        await es.search({
          index: 'old',
          query: { match: { body: { query: 'alpha beta', operator: 'and' } } },
        }),
      ),
    ).toEqual(['d1', 'd2']);
    expect(
      hitIds(await es.search({ index: 'old', query: { match_phrase: { body: 'alpha gamma' } } })),
    ).toEqual(['d1']);
    expect(
      hitIds(
        await es.search({
          index: 'old',
          query: { bool: { filter: [{ term: { body: 'alpha' } }, { term: { body: 'gamma' } }] } },
        }),
      ),
    ).toEqual(['d1']);

    // A delete rewrites alpha's block at its new widths; a write adds a block of its own.
    await es.delete({ index: 'old', id: 'd3', refresh: true });
    await es.index({ index: 'old', id: 'd4', document: { body: 'gamma alpha' }, refresh: true });
    expect(await recount(pool, indexId)).toEqual({ terms: 0, postings: 0 });
    const alpha = await pool.query(
      `SELECT encode(b.freqs, 'hex') AS freqs, octet_length(b.doc_offsets) AS bytes
       FROM posting_blocks b WHERE b.index_id = $1 AND b.term_id = 101 ORDER BY b.base_doc_key`,
      [indexId],
    );
    expect(alpha.rows).toEqual([
      { freqs: '0201', bytes: 2 },
      { freqs: '01', bytes: 1 },
    ]);
    const left = await pool.query(
      `SELECT term, doc_freq, total_term_freq::int FROM terms WHERE index_id = $1 ORDER BY term`,
      [indexId],
    );
    expect(left.rows).toEqual([
      { term: 'alpha', doc_freq: 3, total_term_freq: 4 },
      { term: 'beta', doc_freq: 2, total_term_freq: 2 },
      { term: 'gamma', doc_freq: 2, total_term_freq: 2 },
    ]);
    expect(
      hitIds(
        await es.search({
          index: 'old',
          query: { match: { body: { query: 'gamma alpha', operator: 'and' } } },
        }),
      ),
    ).toEqual(['d1', 'd4']);
  });
});
