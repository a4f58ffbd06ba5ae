import { Client } from 'pg';

/**
 * The inverted index's statistics recounted from what is stored, compared with what the writer keeps:
 * every figure is a count of rows that disagree, so all zeros means the index is consistent.
 * - terms.doc_freq / total_term_freq (the view: totals on each term's last block, migration 0010)
 *   against the documents and summed freqs of their posting blocks;
 * - field_stats.doc_count / sum_total_term_freq against the lengths stored per document and field:
 *   the token streams' (text, keyword) and the number of doc values (numbers, dates, booleans);
 * - postings (in blocks), doc_tokens (orphanDocTerms: the token streams, which are the forward index)
 *   and doc_values of documents that do not exist (orphans), blocks without a term;
 * - malformed blocks: empty, over 128 documents, packed columns (migration 0030) whose lengths are not
 *   the block's size times a width of 1–4 bytes (norms: 1), offsets not ascending, base/last not the
 *   first and last doc key, max_freq/min_norm not the block's, or overlapping the term's previous block;
 * - documents of the index that have no doc_tokens row (stored without their postings);
 * - column-wise doc values (migration 0027) whose number of values per field and chunk differs from
 *   the doc_values rows of the chunk's keys;
 * - field_stats of `field` against a recount of documents whose _source has it (when `field` is given).
 */
export interface Recount {
  termStatsWrong: number;
  fieldStatsWrong: number;
  orphanPostings: number;
  orphanDocTerms: number;
  orphanDocValues: number;
  postingsWithoutTerm: number;
  malformedBlocks: number;
  documentsWithoutPostings: number;
  docValueColumnsWrong: number;
  fieldDocCountWrong: number;
}

export async function recountIndex(databaseUrl: string, indexName: string, field?: string): Promise<Recount> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: found } = await client.query<{ index_id: string }>(
      'SELECT index_id FROM indices WHERE name = $1',
      [indexName],
    );
    if (!found[0]) throw new Error(`no index ${indexName}`);
    const id = found[0].index_id;
    const one = async (sql: string, params: unknown[] = [id]) =>
      Number((await client.query<{ n: string }>(sql, params)).rows[0]!.n);
    return {
      termStatsWrong: await one(
        `SELECT count(*) AS n FROM terms t
           LEFT JOIN (SELECT term_id, count(*) AS df, sum(freq) AS ttf
                        FROM postings WHERE index_id = $1 GROUP BY term_id) p
             USING (term_id)
          WHERE t.index_id = $1 AND (t.doc_freq <> coalesce(p.df, 0) OR t.total_term_freq <> coalesce(p.ttf, 0))`,
      ),
      fieldStatsWrong: await one(
        `SELECT count(*) AS n FROM
           (SELECT field_id, doc_count, sum_total_term_freq FROM field_stats WHERE index_id = $1) s
           FULL JOIN (
             SELECT field_id, count(*) AS c, sum(length) AS l
             FROM doc_tokens WHERE index_id = $1 GROUP BY field_id
             UNION ALL
             SELECT field_id, count(DISTINCT doc_key), count(*) FROM doc_values
             WHERE index_id = $1 AND num IS NOT NULL GROUP BY field_id) r
             USING (field_id)
          WHERE coalesce(s.doc_count, 0) <> coalesce(r.c, 0) OR coalesce(s.sum_total_term_freq, 0) <> coalesce(r.l, 0)`,
      ),
      orphanPostings: await one(
        `SELECT count(*) AS n FROM postings p
          WHERE p.index_id = $1 AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.index_id = $1 AND d.doc_key = p.doc_key)`,
      ),
      orphanDocTerms: await one(
        `SELECT count(*) AS n FROM doc_tokens t
          WHERE t.index_id = $1 AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.index_id = $1 AND d.doc_key = t.doc_key)`,
      ),
      orphanDocValues: await one(
        `SELECT count(*) AS n FROM doc_values v
          WHERE v.index_id = $1 AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.index_id = $1 AND d.doc_key = v.doc_key)`,
      ),
      postingsWithoutTerm: await one(
        `SELECT count(*) AS n FROM posting_blocks p
          WHERE p.index_id = $1 AND NOT EXISTS (SELECT 1 FROM terms t WHERE t.index_id = $1 AND t.term_id = p.term_id)`,
      ),
      malformedBlocks: await one(
        // The value checks only once the shape holds (CASE is lazy): get_byte fails past the end.
        `SELECT count(*) AS n FROM (
           SELECT b.*, lag(last_doc_key) OVER (PARTITION BY term_id ORDER BY last_doc_key) AS previous_last,
                  octet_length(norms) AS size
           FROM posting_blocks b WHERE index_id = $1) b
          WHERE base_doc_key <= previous_last OR CASE
             WHEN size NOT BETWEEN 1 AND 128 OR octet_length(doc_offsets) % size <> 0
               OR octet_length(freqs) % size <> 0 OR octet_length(doc_offsets) / size NOT BETWEEN 1 AND 4
               OR octet_length(freqs) / size NOT BETWEEN 1 AND 4 THEN true
             ELSE EXISTS (
               SELECT 1 FROM (
                 SELECT i, posting_int(doc_offsets, octet_length(doc_offsets) / size, i) AS o
                 FROM unnest(block_subscripts(size)) AS i) u
               WHERE (u.i = 0 AND u.o <> 0) OR (u.i = size - 1 AND base_doc_key + u.o <> last_doc_key)
                  OR (u.i > 0 AND u.o <= posting_int(doc_offsets, octet_length(doc_offsets) / size, u.i - 1)))
               OR max_freq <> (SELECT max(posting_int(freqs, octet_length(freqs) / size, i))
                               FROM unnest(block_subscripts(size)) AS i)
               OR min_norm <> (SELECT min(get_byte(norms, i)) FROM unnest(block_subscripts(size)) AS i)
             END`,
      ),
      documentsWithoutPostings: await one(
        `SELECT count(*) AS n FROM documents d
          WHERE d.index_id = $1 AND NOT EXISTS (SELECT 1 FROM doc_tokens t WHERE t.index_id = $1 AND t.doc_key = d.doc_key)`,
      ),
      docValueColumnsWrong: await one(
        `SELECT count(*) AS n FROM
           (SELECT field_id, doc_key / 4096 AS chunk, count(*) AS c FROM doc_values
             WHERE index_id = $1 GROUP BY 1, 2) r
           FULL JOIN (SELECT field_id, chunk, num_count + kw_count AS c FROM doc_value_columns
                       WHERE index_id = $1) k USING (field_id, chunk)
          WHERE coalesce(r.c, 0) <> coalesce(k.c, 0)`,
      ),
      fieldDocCountWrong: field
        ? await one(
            `SELECT abs(
               (SELECT count(*) FROM documents WHERE index_id = $1 AND (source::jsonb) ? $2)
               - coalesce((SELECT s.doc_count FROM field_stats s JOIN fields f USING (index_id, field_id)
                            WHERE s.index_id = $1 AND f.path = $2), 0)) AS n`,
            [id, field],
          )
        : 0,
    };
  } finally {
    await client.end();
  }
}

export const CONSISTENT: Recount = {
  termStatsWrong: 0,
  fieldStatsWrong: 0,
  orphanPostings: 0,
  orphanDocTerms: 0,
  orphanDocValues: 0,
  postingsWithoutTerm: 0,
  malformedBlocks: 0,
  documentsWithoutPostings: 0,
  docValueColumnsWrong: 0,
  fieldDocCountWrong: 0,
};
