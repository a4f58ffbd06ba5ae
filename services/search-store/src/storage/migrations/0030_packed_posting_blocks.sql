-- Up Migration
-- Packed posting blocks (issue 23, size on disk). A block kept its doc offsets and freqs as int4[] and
-- its norms as int2[]: 10 bytes a posting plus three 20-byte array headers a row, where most values
-- fit one byte (a freq is mostly 1 or 2, a norm is one SmallFloat byte by construction:
-- index/small-float.ts, and the offsets of a frequent term's block span a few hundred doc keys).
-- Each of the three columns becomes a bytea of fixed-width unsigned big-endian numbers, the width
-- chosen PER BLOCK as the fewest bytes (1 to 4) that hold the column's largest value there: the
-- offsets' width from the block's span (last_doc_key - base_doc_key, its last offset), the freqs'
-- from max_freq, the norms' always 1. So a block of n postings has octet_length(norms) = n, and a
-- column's width is its octet_length / n: no header byte, and element i is at byte i * width, read
-- in O(1) by posting_int below (get_byte, as the arrays were read by subscript).
--
-- Why fixed width and not varints or deltas (Lucene's FOR/PFOR, ~1.5 bytes an offset here): the
-- SQL path reads postings one at a time (the `postings` view) and probes one doc in a block
-- (index/postings-reader.ts probePosting), which needs element i without decoding 0..i-1; at a
-- fixed width both stay expressions over builtins (get_byte, position) that the planner inlines.
--
-- The helpers are LANGUAGE sql single expressions, IMMUTABLE and PARALLEL SAFE, so the planner
-- inlines them into the view and the probes (no function call per posting). They expect what the
-- writers guarantee: values >= 0, offsets ascending, 1 <= n <= 128.

-- Element i (0-based) of `bytes` read as unsigned big-endian numbers of `width` bytes.
CREATE FUNCTION posting_int(bytes bytea, width int, i int) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE width
    WHEN 1 THEN get_byte(bytes, i)
    WHEN 2 THEN get_byte(bytes, 2 * i) * 256 + get_byte(bytes, 2 * i + 1)
    WHEN 3 THEN (get_byte(bytes, 3 * i) * 256 + get_byte(bytes, 3 * i + 1)) * 256 + get_byte(bytes, 3 * i + 2)
    ELSE ((get_byte(bytes, 4 * i) * 256 + get_byte(bytes, 4 * i + 1)) * 256 + get_byte(bytes, 4 * i + 2)) * 256
         + get_byte(bytes, 4 * i + 3)
  END
$$;

-- The subscripts 0..size-1 of a block, to unnest. A slice of a constant rather than generate_series:
-- the planner estimates 10 rows for unnest of a non-constant array (as it did for unnest(doc_offsets))
-- but 1,000 for generate_series with non-constant bounds, which over a term's blocks priced queries
-- high enough to switch JIT on (see 0004's note on generate_subscripts).
CREATE FUNCTION block_subscripts(size int) RETURNS int[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ('{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127}'::int[])[1:size]
$$;

-- The subscript of `target` among a block's offsets by a linear scan (block_position's fallback).
CREATE FUNCTION block_scan(offsets bytea, width int, target int) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT i FROM unnest(block_subscripts(octet_length(offsets) / width)) AS i
  WHERE posting_int(offsets, width, i) = target LIMIT 1
$$;

-- The subscript of offset `target` in a block (NULL when absent): position() finds its bytes (a C
-- loop over <= 512 bytes, as array_position was); a match that does not start at a multiple of the
-- width straddles two offsets (possible from width 2 on), and then a linear scan decides.
CREATE FUNCTION block_position(offsets bytea, width int, target int) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN position(substring(int4send(target) FROM 5 - width) IN offsets) = 0 THEN NULL
    WHEN (position(substring(int4send(target) FROM 5 - width) IN offsets) - 1) % width = 0
      THEN (position(substring(int4send(target) FROM 5 - width) IN offsets) - 1) / width
    ELSE block_scan(offsets, width, target)
  END
$$;

-- Values (>= 0) packed at the fewest bytes that hold the largest (index/build-blocks.ts packedWidth
-- is the same rule): for delete's block rewrite and this conversion.
CREATE FUNCTION posting_bytes(vals int[]) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT string_agg(substring(int4send(u.v) FROM 5 - w.width), ''::bytea ORDER BY u.o)
  FROM (SELECT CASE WHEN max(m) < 256 THEN 1 WHEN max(m) < 65536 THEN 2 WHEN max(m) < 16777216 THEN 3 ELSE 4 END
          AS width FROM unnest(vals) AS m) w,
       unnest(vals) WITH ORDINALITY AS u(v, o)
$$;

-- The view reads the columns: dropped around the type change, created again over the new encoding.
DROP VIEW postings;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM posting_blocks WHERE 0 > ANY (doc_offsets) OR 0 > ANY (freqs) OR 0 > ANY (norms)
                                             OR 255 < ANY (norms)) THEN
    RAISE EXCEPTION 'posting_blocks holds a negative offset or freq, or a norm outside 0..255: cannot pack it';
  END IF;
END
$$;
ALTER TABLE posting_blocks
  ALTER COLUMN doc_offsets TYPE bytea USING posting_bytes(doc_offsets),
  ALTER COLUMN freqs TYPE bytea USING posting_bytes(freqs),
  ALTER COLUMN norms TYPE bytea USING posting_bytes(norms::int[]);
-- A row stays far below the ~2 kB past which Postgres would compress or move a value (a full block's
-- three columns take at most 128 × 9 bytes), so get_byte reads the values in place. Not STORAGE
-- PLAIN to say so: plain values lose the 1-byte varlena header, which most (small) blocks use.
-- 0005's statistics target survives the type change; set again to say it still holds.
ALTER TABLE posting_blocks ALTER COLUMN doc_offsets SET STATISTICS 0,
  ALTER COLUMN freqs SET STATISTICS 0, ALTER COLUMN norms SET STATISTICS 0;

-- 0028's view over the packed columns: n = octet_length(norms), the width of a column its length / n.
CREATE VIEW postings AS
SELECT b.index_id, b.term_id,
       b.base_doc_key + posting_int(b.doc_offsets, octet_length(b.doc_offsets) / octet_length(b.norms), u.i) AS doc_key,
       posting_int(b.freqs, octet_length(b.freqs) / octet_length(b.norms), u.i) AS freq,
       get_byte(b.norms, u.i)::int2 AS norm,
       (SELECT array_agg(x.pos - 1 ORDER BY x.pos)
          FROM term_dictionary td, doc_tokens d, unnest(array_positions(d.term_ids, b.term_id::int4)) AS x(pos)
         WHERE td.index_id = b.index_id AND td.term_id = b.term_id
           AND d.index_id = b.index_id AND d.field_id = td.field_id
           AND d.doc_key = b.base_doc_key
                           + posting_int(b.doc_offsets, octet_length(b.doc_offsets) / octet_length(b.norms), u.i))
         AS positions
FROM posting_blocks b, unnest(block_subscripts(octet_length(b.norms))) AS u(i);

-- The merge's candidates (0026's partial index) only where a run reaches a multiple of MERGE_AT (8,
-- index/build-blocks.ts) rather than at every block from there on. A run grows by one per small block,
-- so every run still passes an indexed block, and the merge reads a run back from there to the term's
-- last block whatever comes after it. With `>= 8`, each batch of a load added an entry for every term
-- whose run the merge had not reached yet: 21 MB of the 100,000-document bench's 208 MB posting_blocks.
-- (A delete that drops the very block of a multiple leaves the run to the next one, 8 blocks on.)
DROP INDEX posting_blocks_merge_candidates;
CREATE INDEX posting_blocks_merge_candidates ON posting_blocks (index_id, term_id, base_doc_key)
  WHERE small_run % 8 = 0 AND small_run > 0;

-- Down Migration
DROP INDEX posting_blocks_merge_candidates;
CREATE INDEX posting_blocks_merge_candidates ON posting_blocks (index_id, term_id, base_doc_key)
  WHERE small_run >= 8;
DROP VIEW postings;
CREATE FUNCTION posting_ints(bytes bytea, size int) RETURNS int[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_agg(posting_int(bytes, octet_length(bytes) / size, i) ORDER BY i)
  FROM unnest(block_subscripts(size)) AS i
$$;
ALTER TABLE posting_blocks
  ALTER COLUMN doc_offsets TYPE int4[] USING posting_ints(doc_offsets, octet_length(norms)),
  ALTER COLUMN freqs TYPE int4[] USING posting_ints(freqs, octet_length(norms)),
  ALTER COLUMN norms TYPE int2[] USING posting_ints(norms, octet_length(norms))::int2[];
ALTER TABLE posting_blocks ALTER COLUMN doc_offsets SET STATISTICS 0,
  ALTER COLUMN freqs SET STATISTICS 0, ALTER COLUMN norms SET STATISTICS 0;
DROP FUNCTION posting_ints(bytea, int);
CREATE VIEW postings AS
SELECT b.index_id, b.term_id, b.base_doc_key + u.doc_offset AS doc_key, b.freqs[u.i] AS freq,
       b.norms[u.i] AS norm,
       (SELECT array_agg(x.pos - 1 ORDER BY x.pos)
          FROM term_dictionary td, doc_tokens d, unnest(array_positions(d.term_ids, b.term_id::int4)) AS x(pos)
         WHERE td.index_id = b.index_id AND td.term_id = b.term_id
           AND d.index_id = b.index_id AND d.field_id = td.field_id
           AND d.doc_key = b.base_doc_key + u.doc_offset) AS positions
FROM posting_blocks b, unnest(b.doc_offsets) WITH ORDINALITY AS u(doc_offset, i);
DROP FUNCTION posting_bytes(int[]);
DROP FUNCTION block_position(bytea, int, int);
DROP FUNCTION block_scan(bytea, int, int);
DROP FUNCTION block_subscripts(int);
DROP FUNCTION posting_int(bytea, int, int);
