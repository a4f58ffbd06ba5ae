-- Up Migration
-- doc_values' row-wise indexes, smaller (issue 23, size on disk). Since 0027 the aggregations read
-- doc_value_columns; what still reads these rows (src/index/doc-values-reader.ts and the write path):
--   by document  (index_id, doc_key, and a field_id or not): sort and collapse (docValueOf), scripts
--                and top_hits (findDocValues), nested sorts, delete and replace (deleteDocValues,
--                removedFieldStats) -> doc_values_doc;
--   by value     numeric term and range queries (num) -> doc_values_num; keyword and flattened
--                range, prefix and exists queries (kw) -> doc_values_kw; the SQL path's aggregations
--                of what the columns do not hold (date_nanos, flattened, geo, runtime fields) -> either.
-- Every index is used, so none is dropped; two of them lose the trailing column that made each of
-- their entries unique, so that B-tree deduplication (Postgres 13+) stores one key and a list of
-- row pointers for equal keys: doc_values_doc keyed by (index_id, doc_key) holds a document's
-- values under one key (a field_id is checked on the row, one of a few per document), and
-- doc_values_kw keyed by (index_id, field_id, kw) holds each distinct keyword once (a category
-- field of 15 values over 100,000 documents: 8.6 MB became ~1 MB). The price: a keyword range or
-- prefix query reads the rows for their doc_key (a bitmap heap scan) instead of an index-only scan.
-- doc_values_num stays as it was: float8 keys are never deduplicated (0 and -0 are equal but
-- distinguishable), so dropping doc_key would save 8 of its 44 bytes an entry and cost the scan.
-- index_id stays the leading column everywhere: DELETE /<index> and clones (copyInvertedIndex)
-- select by it, and a clone shares its source's doc keys.
DROP INDEX doc_values_doc;
CREATE INDEX doc_values_doc ON doc_values (index_id, doc_key);
DROP INDEX doc_values_kw;
CREATE INDEX doc_values_kw ON doc_values (index_id, field_id, kw) WHERE kw IS NOT NULL;

-- Down Migration
DROP INDEX doc_values_kw;
CREATE INDEX doc_values_kw ON doc_values (index_id, field_id, kw, doc_key) WHERE kw IS NOT NULL;
DROP INDEX doc_values_doc;
CREATE INDEX doc_values_doc ON doc_values (index_id, doc_key, field_id);
