-- Up Migration
-- Doc values column-wise (issue 23, "aggregations at scale"): per index, field and chunk of 4,096
-- consecutive doc keys (doc_key / 4096), the chunk's values as packed arrays, as Lucene keeps doc values
-- per segment (SORTED_NUMERIC / SORTED_SET). Aggregations read a chunk per row instead of a row per
-- value (aggs/columnar-aggs.ts). Entries are sorted by (doc, value); a document with several values has
-- several entries (multi-valued), one without any has none. Big-endian, as int2send/float8send write:
--   num_docs  int2 per numeric entry: doc_key - chunk * 4096
--   nums      per numeric entry (numbers, dates as epoch ms, booleans 1/0, as doc_values.num): int4 when
--             every value of the chunk is an integer in int4's range, else float8 (the width is the
--             column's length over num_count)
--   kw_docs   int2 per keyword entry
--   kw_ords   per keyword entry its ordinal in `dict`: int2 when the dictionary has under 32,768 keys,
--             else int4
--   dict      the chunk's distinct keywords in byte order (COLLATE "C"), each an int4 length + UTF-8 bytes
-- The writer (index/doc-value-columns.repo.ts) rewrites a chunk in the transaction that adds or removes
-- its documents, so a chunk holds exactly the doc_values rows of its keys. doc_values stays: queries
-- (term/range filters, exists), sort, collapse, scripts and top_hits read a document's values by key.
CREATE TABLE doc_value_columns (
  index_id bigint NOT NULL,
  field_id int NOT NULL,
  chunk bigint NOT NULL,
  num_count int NOT NULL,
  num_docs bytea,
  nums bytea,
  kw_count int NOT NULL,
  kw_docs bytea,
  kw_ords bytea,
  dict bytea,
  PRIMARY KEY (index_id, field_id, chunk)
);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE doc_value_columns ALTER COLUMN num_docs SET COMPRESSION lz4;
    ALTER TABLE doc_value_columns ALTER COLUMN nums SET COMPRESSION lz4;
    ALTER TABLE doc_value_columns ALTER COLUMN kw_docs SET COMPRESSION lz4;
    ALTER TABLE doc_value_columns ALTER COLUMN kw_ords SET COMPRESSION lz4;
    ALTER TABLE doc_value_columns ALTER COLUMN dict SET COMPRESSION lz4;
  END IF;
END
$$;

-- Rebuilds an index's columns from its doc_values rows: the backfill below, and a repair.
CREATE FUNCTION doc_value_columns_rebuild(p_index bigint) RETURNS void LANGUAGE sql AS $fn$
  DELETE FROM doc_value_columns WHERE index_id = p_index;
  INSERT INTO doc_value_columns (index_id, field_id, chunk, num_count, num_docs, nums, kw_count, kw_docs, kw_ords, dict)
  WITH v AS (
    SELECT field_id, doc_key / 4096 AS chunk, (doc_key % 4096)::int2 AS off, num, kw
      FROM doc_values WHERE index_id = p_index
  ), n AS (
    SELECT field_id, chunk, count(*)::int AS c,
           string_agg(int2send(off), ''::bytea ORDER BY off, num) AS docs,
           CASE WHEN bool_and(num = trunc(num) AND num BETWEEN -2147483648 AND 2147483647)
                THEN string_agg(int4send(CASE WHEN num BETWEEN -2147483648 AND 2147483647 THEN num::int4 ELSE 0 END),
                                ''::bytea ORDER BY off, num)
                ELSE string_agg(float8send(num), ''::bytea ORDER BY off, num) END AS vals
      FROM v WHERE num IS NOT NULL GROUP BY field_id, chunk
  ), d AS (
    SELECT field_id, chunk, kw,
           (row_number() OVER (PARTITION BY field_id, chunk ORDER BY kw COLLATE "C") - 1)::int4 AS ord
      FROM (SELECT DISTINCT field_id, chunk, kw FROM v WHERE kw IS NOT NULL) x
  ), k AS (
    SELECT v.field_id, v.chunk, count(*)::int AS c,
           string_agg(int2send(v.off), ''::bytea ORDER BY v.off, d.ord) AS docs,
           CASE WHEN max(d.ord) < 32768
                THEN string_agg(int2send(least(d.ord, 32767)::int2), ''::bytea ORDER BY v.off, d.ord)
                ELSE string_agg(int4send(d.ord), ''::bytea ORDER BY v.off, d.ord) END AS ords
      FROM v JOIN d ON d.field_id = v.field_id AND d.chunk = v.chunk AND d.kw = v.kw
     GROUP BY v.field_id, v.chunk
  ), dict AS (
    SELECT field_id, chunk,
           string_agg(int4send(octet_length(convert_to(kw, 'UTF8'))) || convert_to(kw, 'UTF8'), ''::bytea ORDER BY ord) AS dict
      FROM d GROUP BY field_id, chunk
  )
  SELECT p_index, field_id, chunk, coalesce(n.c, 0), n.docs, n.vals, coalesce(k.c, 0), k.docs, k.ords, dict.dict
    FROM n FULL JOIN k USING (field_id, chunk) LEFT JOIN dict USING (field_id, chunk);
$fn$;

SELECT doc_value_columns_rebuild(index_id) FROM indices;

-- Down Migration
DROP FUNCTION doc_value_columns_rebuild(bigint);
DROP TABLE doc_value_columns;
