-- Up Migration
-- No planner statistics for the inverted index's array columns (issue 6, ingest). ANALYZE computes
-- element-level statistics (most common elements, distinct-element histograms) for every array
-- column it samples: for posting_blocks' offsets, freqs and norms and doc_tokens' term ids that was
-- 80% of its time (posting_blocks 560 → 100 ms, doc_tokens 150 → 85 ms at 100,000 Brown documents),
-- and the statistics refresher runs it seven times during a 100,000-document load, beside the load.
-- No statement filters or joins on these columns (the scorer reads them, SQL unnests or subscripts
-- them), so no estimate uses those statistics; their width falls back to the type's default.
ALTER TABLE posting_blocks ALTER COLUMN doc_offsets SET STATISTICS 0;
ALTER TABLE posting_blocks ALTER COLUMN freqs SET STATISTICS 0;
ALTER TABLE posting_blocks ALTER COLUMN norms SET STATISTICS 0;
ALTER TABLE doc_tokens ALTER COLUMN term_ids SET STATISTICS 0;

-- Down Migration
ALTER TABLE posting_blocks ALTER COLUMN doc_offsets SET STATISTICS -1;
ALTER TABLE posting_blocks ALTER COLUMN freqs SET STATISTICS -1;
ALTER TABLE posting_blocks ALTER COLUMN norms SET STATISTICS -1;
ALTER TABLE doc_tokens ALTER COLUMN term_ids SET STATISTICS -1;
