-- Up Migration
-- Smaller token streams (issue 23, size on disk). doc_tokens held each position's term id as a
-- bigint: at 100,000 Brown documents (~20 M positions) that was 155 MB of the 583 MB search-store
-- took, beside Postgres GIN's 370 MB for the same documents. Term ids come from one sequence, one
-- per new (index, field, term) and never reused (45,337 there): 2^31 of them are e.g. 4,000 reindexes
-- of an index of 500,000 terms, so they fit an int4; as int4[] a stream is the same values at half
-- the bytes.
--
-- Why int4[] and not a packed bytea (varint or delta codes, ~2.7 bytes a position here): the streams
-- are read in SQL, not only by Node: phrase and phrase-prefix queries call array_positions on
-- candidates, the `postings` view derives positions from them, delete and replace unnest them to
-- find the blocks they subtract from, significant_text unnests their distinct terms, and the
-- reliability suite's recount reads their lengths. A bytea would need a decoder in SQL at each of
-- those places (PL/pgSQL byte loops, slower than the array builtins by far); int4[] keeps them all
-- builtin. Not compressed by Postgres either way: a row is compressed only past ~2 kB
-- (TOAST_TUPLE_THRESHOLD; toast_tuple_target does not lower that), which a ~200-word body now
-- stays under. Delta coding does not apply: a stream is in position order, not term order.
--
-- The sequence becomes an int4 sequence, so that an id that would not fit is refused when it is
-- drawn (nextval fails) rather than when its stream is written. Ids already drawn past int4 (none
-- in practice) make this migration fail rather than truncate.
DO $$
BEGIN
  IF (SELECT last_value FROM term_id_seq) > 2147483647 THEN
    RAISE EXCEPTION 'term ids beyond int4 (term_id_seq at %): doc_tokens cannot become int4[]',
      (SELECT last_value FROM term_id_seq);
  END IF;
END
$$;
ALTER SEQUENCE term_id_seq AS integer;

-- The view reads term_ids, so it is dropped around the type change and created again as 0004 made it,
-- with two changes: the id cast to the stream's element type (array_positions needs both of one
-- type), and the stream probed by its whole key. Since 0007 the key is (index_id, field_id, doc_key),
-- and the view named no field: each posting's positions scanned every stream of the index. The
-- term's field comes from the dictionary (one probe of its (index_id, term_id) key); a term's id
-- occurs only in its own field's streams, so the positions are the same.
DROP VIEW postings;
ALTER TABLE doc_tokens ALTER COLUMN term_ids TYPE int4[] USING term_ids::int4[];
-- The type change keeps 0005's statistics target but resets 0006's compression method: set it again.
ALTER TABLE doc_tokens ALTER COLUMN term_ids SET STATISTICS 0;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE doc_tokens ALTER COLUMN term_ids SET COMPRESSION lz4;
  END IF;
END
$$;
CREATE VIEW postings AS
SELECT b.index_id, b.term_id, b.base_doc_key + u.doc_offset AS doc_key, b.freqs[u.i] AS freq,
       b.norms[u.i] AS norm,
       (SELECT array_agg(x.pos - 1 ORDER BY x.pos)
          FROM term_dictionary td, doc_tokens d, unnest(array_positions(d.term_ids, b.term_id::int4)) AS x(pos)
         WHERE td.index_id = b.index_id AND td.term_id = b.term_id
           AND d.index_id = b.index_id AND d.field_id = td.field_id
           AND d.doc_key = b.base_doc_key + u.doc_offset) AS positions
FROM posting_blocks b, unnest(b.doc_offsets) WITH ORDINALITY AS u(doc_offset, i);

-- documents rows are inserted and deleted, never updated (a replace is a new row under a new doc key,
-- storage/documents.repo.ts), so the 10% 0002 left free on each page for updates was never used.
-- Applies to pages written from now on.
ALTER TABLE documents SET (fillfactor = 100);

-- Down Migration
ALTER TABLE documents SET (fillfactor = 90);
DROP VIEW postings;
ALTER TABLE doc_tokens ALTER COLUMN term_ids TYPE bigint[] USING term_ids::bigint[];
ALTER TABLE doc_tokens ALTER COLUMN term_ids SET STATISTICS 0;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE doc_tokens ALTER COLUMN term_ids SET COMPRESSION lz4;
  END IF;
END
$$;
CREATE VIEW postings AS
SELECT b.index_id, b.term_id, b.base_doc_key + u.doc_offset AS doc_key, b.freqs[u.i] AS freq,
       b.norms[u.i] AS norm,
       (SELECT array_agg(x.pos - 1 ORDER BY x.pos)
          FROM doc_tokens d, unnest(array_positions(d.term_ids, b.term_id)) AS x(pos)
         WHERE d.index_id = b.index_id AND d.doc_key = b.base_doc_key + u.doc_offset) AS positions
FROM posting_blocks b, unnest(b.doc_offsets) WITH ORDINALITY AS u(doc_offset, i);
ALTER SEQUENCE term_id_seq AS bigint;
