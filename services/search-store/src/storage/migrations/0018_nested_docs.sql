-- Up Migration
-- The `nested` field type (issue 21). A document stays one row in `documents`; each of its nested
-- objects is a document of the inverted index with a doc key of its own (drawn from doc_key_seq
-- after the batch's documents, so postings still ascend), as Lucene indexes them in a block beside
-- their parent. A row says where that key sits: the document it belongs to (`root_key`), the
-- document or nested object it is inside (`parent_key`), its nested path and its offset among its
-- siblings (ES `_nested.offset`). A nested query maps matching objects to their parents through it.
CREATE TABLE nested_docs (
  index_id bigint NOT NULL,
  doc_key bigint NOT NULL,
  root_key bigint NOT NULL,
  parent_key bigint NOT NULL,
  path text COLLATE "C" NOT NULL,
  "offset" integer NOT NULL,
  PRIMARY KEY (index_id, doc_key)
);
CREATE INDEX nested_docs_by_root ON nested_docs (index_id, root_key);
CREATE INDEX nested_docs_by_path ON nested_docs (index_id, path, parent_key);

-- Down Migration
DROP TABLE nested_docs;
