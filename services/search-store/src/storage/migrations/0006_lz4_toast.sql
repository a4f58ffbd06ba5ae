-- Up Migration
-- lz4 instead of pglz for the values Postgres compresses (issue 6, ingest). A value over ~2 kB is
-- compressed before it is stored (TOAST): a body's token stream (doc_tokens.term_ids, 8 bytes a
-- position) passes that at ~250 words, and so do larger sources. pglz made the token-stream COPY of a
-- 5,000-document batch of ~1.3 kB documents take 237 ms; with lz4 73 ms, and the 100,000-document
-- bench load went from 2,500 to 3,070 docs/s. lz4 also decompresses several times faster (phrase
-- queries and highlighting read the token streams). Values already stored keep their method; both
-- are read alike. Servers built without lz4 (SHOW default_toast_compression lists it only when
-- built in) keep pglz.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE doc_tokens ALTER COLUMN term_ids SET COMPRESSION lz4;
    ALTER TABLE documents ALTER COLUMN source SET COMPRESSION lz4;
  END IF;
END
$$;

-- Down Migration
ALTER TABLE doc_tokens ALTER COLUMN term_ids SET COMPRESSION default;
ALTER TABLE documents ALTER COLUMN source SET COMPRESSION default;
