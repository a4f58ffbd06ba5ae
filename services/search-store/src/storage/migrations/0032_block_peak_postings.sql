-- Up Migration
-- A posting block's peaks (issue 23, single-term top-k): block-max pruning bounded a block by
-- BM25(max_freq, min_norm), but the highest freq and the shortest field are often two different
-- documents' (over the bench's single-word queries at 1M that bound keeps 95% of the blocks, the
-- block's true best posting about 10%). `peaks` holds the block's Pareto front of (freq, norm) pairs,
-- so a reader can bound a block by its true best posting under any statistics (BM25 rises with freq
-- and falls with the norm byte: index/block-peak-pairs.ts, which the writers use, says why):
--   NULL   unknown (not backfilled below, or written by a path that does not compute it): the reader
--          falls back to BM25(max_freq, min_norm), an upper bound;
--   empty  a posting has both max_freq and min_norm: that pair is the block's peak;
--   else   the front's pairs (>= 2) in ascending freq (so ascending norm) order, 5 bytes each: the
--          freq as a big-endian uint32, then the norm byte.
-- Added last (the 13th column, after small_run: the writers' COPY lists name it), nullable and
-- without a default, so the ALTER only changes the catalog.
ALTER TABLE posting_blocks ADD COLUMN peaks bytea;
ALTER TABLE posting_blocks ALTER COLUMN peaks SET STATISTICS 0;

-- The same bytes as index/block-peak-pairs.ts peakPairs from a block's packed freqs and norms
-- (migration 0030's encoding): the best freq per norm byte, kept where it beats every shorter norm's.
-- For this backfill and any rewrite of blocks in SQL (index/posting-blocks.repo.ts removePostings
-- applies the same rule as a window over the postings it already reads, which costs less than
-- unpacking the repacked block again). A block of one posting is its own peak without reading it.
-- Not inlinable (an aggregate): one function call per block.
CREATE FUNCTION block_peaks(freqs bytea, norms bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN octet_length(norms) = 1 THEN '\x'::bytea ELSE (
    SELECT CASE WHEN count(*) = 1 THEN '\x'::bytea
                ELSE string_agg(int4send(p.f) || substring(int4send(p.n) FROM 4), ''::bytea ORDER BY p.f) END
    FROM (SELECT q.f, q.n, max(q.f) OVER (ORDER BY q.n ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS shorter
          FROM (SELECT get_byte(norms, s.i) AS n,
                       max(posting_int(freqs, octet_length(freqs) / octet_length(norms), s.i)) AS f
                FROM unnest(block_subscripts(octet_length(norms))) AS s(i) GROUP BY 1) q) p
    WHERE p.shorter IS NULL OR p.f > p.shorter) END
$$;

-- The backfill, in this migration's transaction: every existing block gets its peaks. It rewrites
-- every row (a new tuple each; the table's indexes get new entries unless the page has room for a
-- HOT update) and calls block_peaks once a block, which is most of the cost (~46 us a block, against
-- ~8 us for the rewrite alone, measured on the bench's 100,000 documents). Measured: 100,000 bench
-- documents (141k blocks, 130 MB) 15 s; 1,000,000 (bench/search/stages.mjs's load, 1.05M blocks,
-- 1,231 MB) 168 s on a shared 2-core machine, the table 1,231 -> 1,288 MB (the new versions mostly
-- went into the space the merges had freed; a VACUUM, the merger's reclaim or autovacuum, frees the
-- old ones). The ALTER above holds posting_blocks' ACCESS EXCLUSIVE lock until the transaction
-- commits, so searches wait for the backfill: the service runs migrations before it listens.
-- All blocks, not only the long ones: at 1M a block holds 116 postings on average and 97% of the
-- blocks (99.8% of the postings) hold 16 or more, so skipping the small ones would save nothing. Blocks written after it fill the column themselves.
UPDATE posting_blocks SET peaks = block_peaks(freqs, norms);

-- Down Migration
ALTER TABLE posting_blocks DROP COLUMN peaks;
DROP FUNCTION block_peaks(bytea, bytea);
