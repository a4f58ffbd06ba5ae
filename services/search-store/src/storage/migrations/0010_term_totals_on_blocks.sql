-- Up Migration
-- A term's document frequency and total term frequency move onto its last posting block (issue 6,
-- ingest). A batch writes each of its terms' last block anyway (the tail it extends, or the new
-- blocks it copies), so the totals ride on that one row write, and the ~38k dictionary rows a
-- 5,000-document batch rewrote only to add its counts (~145 ms of Postgres a batch) are no longer
-- touched: the dictionary holds term → id, written once per new term.
-- Every block carries the totals as of the write that wrote it; the last block's are current (the
-- `terms` view reads them, with the last block's xmin and key as the version the postings cache
-- checks). Delete and replace set the new totals on the last block that remains.
ALTER TABLE posting_blocks ADD COLUMN term_doc_freq int NOT NULL DEFAULT 0;
ALTER TABLE posting_blocks ADD COLUMN term_total_freq bigint NOT NULL DEFAULT 0;
UPDATE posting_blocks b SET term_doc_freq = t.doc_freq, term_total_freq = t.total_term_freq
FROM terms t
WHERE b.index_id = t.index_id AND b.term_id = t.term_id
  AND b.base_doc_key = (SELECT max(l.base_doc_key) FROM posting_blocks l
                        WHERE l.index_id = t.index_id AND l.term_id = t.term_id);
ALTER TABLE posting_blocks ALTER COLUMN term_doc_freq DROP DEFAULT;
ALTER TABLE posting_blocks ALTER COLUMN term_total_freq DROP DEFAULT;
DROP FUNCTION add_term_stats(bigint, bigint[], int[], bigint[]);
ALTER TABLE terms RENAME TO term_dictionary;
ALTER TABLE term_dictionary DROP COLUMN doc_freq, DROP COLUMN total_term_freq;
ALTER TABLE term_dictionary SET (fillfactor = 100);
CREATE VIEW terms AS
SELECT d.index_id, d.field_id, d.term, d.term_id, l.term_doc_freq AS doc_freq,
       l.term_total_freq AS total_term_freq, l.xmin::text || '/' || l.base_doc_key AS version
FROM term_dictionary d
CROSS JOIN LATERAL (
  SELECT b.term_doc_freq, b.term_total_freq, b.xmin, b.base_doc_key FROM posting_blocks b
  WHERE b.index_id = d.index_id AND b.term_id = d.term_id
  ORDER BY b.base_doc_key DESC LIMIT 1) l;

-- Down Migration
DROP VIEW terms;
ALTER TABLE term_dictionary RENAME TO terms;
ALTER TABLE terms SET (fillfactor = 70);
ALTER TABLE terms ADD COLUMN doc_freq int NOT NULL DEFAULT 0;
ALTER TABLE terms ADD COLUMN total_term_freq bigint NOT NULL DEFAULT 0;
UPDATE terms t SET (doc_freq, total_term_freq) = (
  SELECT b.term_doc_freq, b.term_total_freq FROM posting_blocks b
  WHERE b.index_id = t.index_id AND b.term_id = t.term_id
  ORDER BY b.base_doc_key DESC LIMIT 1);
ALTER TABLE terms ALTER COLUMN doc_freq DROP DEFAULT;
ALTER TABLE terms ALTER COLUMN total_term_freq DROP DEFAULT;
ALTER TABLE posting_blocks DROP COLUMN term_doc_freq, DROP COLUMN term_total_freq;
CREATE FUNCTION add_term_stats(p_index_id bigint, p_term_ids bigint[], p_doc_freqs int[],
                               p_total_term_freqs bigint[])
RETURNS bigint
LANGUAGE sql
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
  WITH updated AS (
    UPDATE terms SET doc_freq = terms.doc_freq + u.df, total_term_freq = terms.total_term_freq + u.ttf
    FROM unnest(p_term_ids, p_doc_freqs, p_total_term_freqs) AS u(id, df, ttf)
    WHERE terms.index_id = p_index_id AND terms.term_id = u.id
    RETURNING 1)
  SELECT count(*) FROM updated
$$;
