-- Up Migration
-- The completion field type (issue 21). Each input of a document's completion field is one row: the
-- analysed key (tokens joined by U+001F when preserve_separators, the FST key of Lucene's
-- CompletionAnalyzer) under the "C" collation so that a prefix is one btree range, the surface form
-- the suggester returns, and its weight. Written and deleted in the document write's transaction.
CREATE TABLE completion_entries (
  index_id bigint NOT NULL,
  field text COLLATE "C" NOT NULL,
  analyzed text COLLATE "C" NOT NULL,
  input text NOT NULL,
  weight integer NOT NULL,
  doc_key bigint NOT NULL
);
CREATE INDEX completion_entries_prefix ON completion_entries (index_id, field, analyzed);
CREATE INDEX completion_entries_doc ON completion_entries (index_id, doc_key);

-- Down Migration
DROP TABLE completion_entries;
