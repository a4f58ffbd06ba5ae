-- Up Migration
-- The inverted index (API-NOTES §A3.1), written in the same transaction as the document.
-- Owned by src/index/ (writer) and read by src/query/ and src/aggs/.

-- Field dictionary: one row per indexed field path of an index (multi-fields too: "title.keyword").
CREATE TABLE fields (
  index_id bigint NOT NULL REFERENCES indices (index_id) ON DELETE CASCADE,
  field_id int NOT NULL,
  path text NOT NULL,
  type text NOT NULL,
  PRIMARY KEY (index_id, field_id),
  UNIQUE (index_id, path)
);

-- Term dictionary with the per-term statistics BM25 needs. "C" collation: byte order, so prefix
-- queries are range scans.
CREATE TABLE terms (
  index_id bigint NOT NULL REFERENCES indices (index_id) ON DELETE CASCADE,
  field_id int NOT NULL,
  term text COLLATE "C" NOT NULL,
  term_id bigint NOT NULL,
  doc_freq int NOT NULL,
  total_term_freq bigint NOT NULL,
  PRIMARY KEY (index_id, field_id, term),
  UNIQUE (index_id, term_id)
);
CREATE SEQUENCE term_id_seq AS bigint;

-- Postings: one row per (term, document); norm is Lucene's one-byte encoded field length, denormalised
-- here so scoring needs no join; positions only for text fields (phrase queries).
CREATE TABLE postings (
  index_id bigint NOT NULL,
  term_id bigint NOT NULL,
  doc_key bigint NOT NULL,
  freq int NOT NULL,
  norm smallint NOT NULL,
  positions int[],
  PRIMARY KEY (index_id, term_id, doc_key)
) WITH (fillfactor = 90);
CREATE INDEX postings_doc ON postings (index_id, doc_key);

-- Per-field statistics: docCount (docs with the field) and sumTotalTermFreq (tokens in the field).
CREATE TABLE field_stats (
  index_id bigint NOT NULL,
  field_id int NOT NULL,
  doc_count bigint NOT NULL,
  sum_total_term_freq bigint NOT NULL,
  sum_doc_freq bigint NOT NULL,
  PRIMARY KEY (index_id, field_id)
);

-- Doc values: columnar values for keyword, numeric, date and boolean fields (filters, sort, aggs).
-- One row per value (multi-valued fields have several); num holds numbers, dates (epoch ms) and
-- booleans (1/0); kw holds keyword strings.
CREATE TABLE doc_values (
  index_id bigint NOT NULL,
  field_id int NOT NULL,
  doc_key bigint NOT NULL,
  num double precision,
  kw text COLLATE "C",
  CHECK ((num IS NULL) <> (kw IS NULL))
);
CREATE INDEX doc_values_doc ON doc_values (index_id, doc_key, field_id);
CREATE INDEX doc_values_num ON doc_values (index_id, field_id, num, doc_key) WHERE num IS NOT NULL;
CREATE INDEX doc_values_kw ON doc_values (index_id, field_id, kw, doc_key) WHERE kw IS NOT NULL;

-- Down Migration
DROP TABLE doc_values;
DROP TABLE field_stats;
DROP TABLE postings;
DROP SEQUENCE term_id_seq;
DROP TABLE terms;
DROP TABLE fields;
