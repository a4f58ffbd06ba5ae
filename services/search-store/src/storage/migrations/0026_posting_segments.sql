-- Up Migration
-- Postings as segments (issue 23): a bulk batch writes each of its terms' postings as new block rows
-- only (binary COPY), never appending to the term's tail block with an UPDATE. Doc keys only grow, so
-- a term's blocks stay disjoint and ascending and every reader of 0004's contract is unchanged; the
-- term's totals still ride on its last block (0010), now always a freshly copied one.
--
-- small_run: how many blocks written with fewer than 128 documents end here in a row (0 for a full
-- block). A batch that meets a term adds one small block; the background merge (index/segment-merge.ts,
-- a tiered policy as Lucene's TieredMergePolicy) rewrites a term's run of small blocks into full
-- blocks once the run holds MERGE_AT (8, build-blocks.ts) of them. The partial index below is where
-- the merge finds those terms: only blocks ending such a run have an entry, a few per batch.
ALTER TABLE posting_blocks ADD COLUMN small_run smallint NOT NULL DEFAULT 0;
UPDATE posting_blocks SET small_run = 1 WHERE cardinality(doc_offsets) < 128;
ALTER TABLE posting_blocks ALTER COLUMN small_run DROP DEFAULT;
CREATE INDEX posting_blocks_merge_candidates ON posting_blocks (index_id, term_id, base_doc_key)
  WHERE small_run >= 8;
-- Rows are never updated in place on ingest any more (a merge deletes and copies, a delete rewrites a
-- few blocks): 0004's room for HOT appends is dead space. Applies to pages written from now on.
ALTER TABLE posting_blocks SET (fillfactor = 100);

-- Down Migration
ALTER TABLE posting_blocks SET (fillfactor = 50);
DROP INDEX posting_blocks_merge_candidates;
ALTER TABLE posting_blocks DROP COLUMN small_run;
