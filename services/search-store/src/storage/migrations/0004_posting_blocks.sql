-- Up Migration
-- Block postings (issue 6), as Lucene stores them: one row per block of at most 128 documents of one
-- term instead of one row per (term, document). A row costs ~24 bytes of tuple header and ~20 bytes of
-- btree entry, which was most of the old index; a block stores 10 bytes per posting.
--
-- posting_blocks is a contract with the Node-side scorer (it reads the arrays with array_send):
--   base_doc_key  the block's first doc key, and the key: blocks of a term are disjoint and ascending,
--                 so the block that may hold doc k is the last with base_doc_key <= k (one backward
--                 primary-key probe); a term's blocks in key order are in doc order;
--   last_doc_key  its last doc key (k is in the block only if k <= last_doc_key);
--   doc_offsets   doc_key - base_doc_key, ascending; freqs and norms (Lucene's one-byte encoded
--                 field length) at the same subscripts;
--   max_freq, min_norm  the block's best impact (highest freq, shortest field) for block-max pruning.
-- Blocks are filled to 128 by appending to a term's tail block; deletes shrink blocks in place (never
-- merged back: a later bulk only appends), empty blocks are dropped.
-- Why the key is base_doc_key and not last_doc_key (the first draft of this contract): appending to a
-- tail changes last_doc_key but not base_doc_key, so with no indexed column changed and room left on
-- the page (fillfactor 50) the append is a HOT update: no new index entry, and the old version's space
-- is pruned in place. Keyed by last_doc_key every append was a non-HOT update and a 20,000-document
-- load left the heap at 3× its live size.
CREATE TABLE posting_blocks (
  index_id bigint NOT NULL,
  term_id bigint NOT NULL,
  base_doc_key bigint NOT NULL,
  last_doc_key bigint NOT NULL,
  doc_offsets int4[] NOT NULL,
  freqs int4[] NOT NULL,
  norms int2[] NOT NULL,
  max_freq int NOT NULL,
  min_norm smallint NOT NULL,
  PRIMARY KEY (index_id, term_id, base_doc_key)
) WITH (fillfactor = 50);

-- Positions leave the postings: each document keeps, per field, its token stream as term ids, the term
-- id at each position (0 for a gap: a removed stop word, the position_increment_gap of 100 between
-- the values of an array). The positions of term T are array_positions(term_ids, T) - 1. Phrase
-- queries, explain and highlight read them for candidate documents only. Keyword fields keep their
-- distinct term ids here too (no positions), so the table is also the forward index that delete and
-- replace follow to the blocks (it replaces doc_terms). A term's freq in a document is the number
-- of times its id occurs in the document's rows.
CREATE TABLE doc_tokens (
  index_id bigint NOT NULL,
  doc_key bigint NOT NULL,
  field_id int NOT NULL,
  term_ids bigint[] NOT NULL,
  PRIMARY KEY (index_id, doc_key, field_id)
);

-- The bulk's dictionary update rewrites the statistics of every term it meets: room on each page lets
-- those be HOT updates (no new entries in the two term indexes). Applies to pages written from now on.
ALTER TABLE terms SET (fillfactor = 70);

-- Convert what 0003 wrote: postings chunked into blocks of 128 in doc_key order per term.
INSERT INTO posting_blocks (index_id, term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms, max_freq, min_norm)
SELECT index_id, term_id, min(doc_key), max(doc_key),
       array_agg((doc_key - first_key)::int4 ORDER BY doc_key),
       array_agg(freq ORDER BY doc_key), array_agg(norm ORDER BY doc_key),
       max(freq), min(norm)
FROM (
  SELECT index_id, term_id, doc_key, freq, norm, block,
         min(doc_key) OVER (PARTITION BY index_id, term_id, block) AS first_key
  FROM (
    SELECT index_id, term_id, doc_key, freq, norm,
           (row_number() OVER (PARTITION BY index_id, term_id ORDER BY doc_key) - 1) / 128 AS block
    FROM postings) numbered) blocked
GROUP BY index_id, term_id, block;

-- Token streams of text fields, rebuilt from the positions (gaps filled with 0).
WITH tokens AS (
  SELECT p.index_id, p.doc_key, t.field_id, p.term_id, pos
  FROM postings p JOIN terms t ON t.index_id = p.index_id AND t.term_id = p.term_id,
       unnest(p.positions) AS pos
  WHERE p.positions IS NOT NULL),
spans AS (
  SELECT index_id, doc_key, field_id, max(pos) AS last_pos FROM tokens GROUP BY index_id, doc_key, field_id)
INSERT INTO doc_tokens (index_id, doc_key, field_id, term_ids)
SELECT s.index_id, s.doc_key, s.field_id, array_agg(coalesce(k.term_id, 0) ORDER BY g)
FROM spans s CROSS JOIN LATERAL generate_series(0, s.last_pos) AS g
LEFT JOIN tokens k ON k.index_id = s.index_id AND k.doc_key = s.doc_key AND k.field_id = s.field_id AND k.pos = g
GROUP BY s.index_id, s.doc_key, s.field_id;

-- Keyword (and other position-less) terms: the distinct term ids of the field.
INSERT INTO doc_tokens (index_id, doc_key, field_id, term_ids)
SELECT p.index_id, p.doc_key, t.field_id, array_agg(p.term_id ORDER BY p.term_id)
FROM postings p JOIN terms t ON t.index_id = p.index_id AND t.term_id = p.term_id
WHERE p.positions IS NULL
GROUP BY p.index_id, p.doc_key, t.field_id;

DROP TABLE postings;
DROP TABLE doc_terms;

-- The old row-per-posting shape as a view, for reads that want one posting at a time (the OR scorer,
-- explain, tests). The planner flattens it: index_id/term_id conditions reach the block primary key;
-- a doc_key condition does not (it filters unnested rows), so joins that probe a posting by doc key
-- go to posting_blocks directly (base_doc_key <= k, see src/query/probe-posting.ts). positions is
-- computed only when selected. One unnest and subscripts rather than unnest(a, b, c), which reads a
-- long list half as fast; and not generate_subscripts, which the planner takes for 1,000 rows a block
-- (costs that high switch JIT on, ~100 ms a query).
CREATE VIEW postings AS
SELECT b.index_id, b.term_id, b.base_doc_key + u.doc_offset AS doc_key, b.freqs[u.i] AS freq,
       b.norms[u.i] AS norm,
       (SELECT array_agg(x.pos - 1 ORDER BY x.pos)
          FROM doc_tokens d, unnest(array_positions(d.term_ids, b.term_id)) AS x(pos)
         WHERE d.index_id = b.index_id AND d.doc_key = b.base_doc_key + u.doc_offset) AS positions
FROM posting_blocks b, unnest(b.doc_offsets) WITH ORDINALITY AS u(doc_offset, i);

-- Down Migration
ALTER VIEW postings RENAME TO postings_from_blocks;
CREATE TABLE postings (
  index_id bigint NOT NULL,
  term_id bigint NOT NULL,
  doc_key bigint NOT NULL,
  freq int NOT NULL,
  norm smallint NOT NULL,
  positions int[],
  PRIMARY KEY (index_id, term_id, doc_key) INCLUDE (freq, norm)
) WITH (fillfactor = 90);
CREATE TABLE doc_terms (
  index_id bigint NOT NULL,
  doc_key bigint NOT NULL,
  term_ids bigint[] NOT NULL,
  PRIMARY KEY (index_id, doc_key)
);
-- Positions only for text fields: keyword rows of doc_tokens are those whose field is not 'text'.
INSERT INTO postings (index_id, term_id, doc_key, freq, norm, positions)
SELECT v.index_id, v.term_id, v.doc_key, v.freq, v.norm,
       CASE WHEN f.type = 'text' THEN v.positions END
FROM postings_from_blocks v
JOIN terms t ON t.index_id = v.index_id AND t.term_id = v.term_id
JOIN fields f ON f.index_id = t.index_id AND f.field_id = t.field_id;
INSERT INTO doc_terms (index_id, doc_key, term_ids)
SELECT index_id, doc_key, array_agg(DISTINCT x) FROM doc_tokens, unnest(term_ids) AS x
WHERE x <> 0 GROUP BY index_id, doc_key;
DROP VIEW postings_from_blocks;
ALTER TABLE terms RESET (fillfactor);
DROP TABLE doc_tokens;
DROP TABLE posting_blocks;
