-- Up Migration
-- The statistics of a batch's cached terms (issue 6; index/inverted-index.repo.ts addTermStats) in
-- one round trip. The join must probe the terms' primary key once per term: a bulk outgrows the
-- table statistics, and the planner would hash the whole dictionary instead (index/with-nested-loops.ts).
-- A function's SET clauses hold for its own statement only, so the batch needs no set_config round
-- trips around it, and the UPDATE goes out the moment it is queued, not after Node reads a reply.
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

-- Down Migration
DROP FUNCTION add_term_stats(bigint, bigint[], int[], bigint[]);
