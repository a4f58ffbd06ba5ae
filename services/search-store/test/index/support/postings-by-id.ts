import type { Pool } from 'pg';

/**
 * Every posting of an index by field path, term and document `_id` (two indices' doc keys and term
 * ids differ, so tests compare these), with its positions, in a fixed order.
 *
 * The view's rows are materialised before the join with `documents`: joined directly, a plan with
 * `documents` outside (its statistics, taken by autovacuum mid-suite, can count a handful of rows for
 * a new index) unpacks every block of the index once per document. At 800 documents that is
 * 4.5 million join filters, 1.5 s quiet; on CI's loaded machine it ran past the test's timeout and
 * kept the pool busy past afterAll's.
 */
export async function postingsById(pool: Pool, indexId: string): Promise<Record<string, unknown>[]> {
  const { rows } = await pool.query(
    `WITH p AS MATERIALIZED (SELECT * FROM postings WHERE index_id = $1)
     SELECT f.path, t.term, d.id, p.freq, p.norm, p.positions
     FROM p JOIN terms t USING (index_id, term_id) JOIN fields f USING (index_id, field_id)
     JOIN documents d ON d.index_id = p.index_id AND d.doc_key = p.doc_key
     ORDER BY f.path, t.term, d.id`,
    [indexId],
  );
  return rows;
}
