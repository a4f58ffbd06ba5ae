-- Up Migration
-- Vector search (issue 22). A dense_vector value is stored once, compactly, beside its document and in
-- the same transaction: `vec` is little-endian float32 (4 bytes a dimension) or int8 for
-- element_type byte (1 byte a dimension), never JSON numbers. Read by the exact paths (script_score,
-- flat knn) and by the HNSW graph, which keeps its own rows below. `field` is the field's path
-- (a dense_vector is never a multi-field, and `fields` ids are drawn only for analysed fields).
CREATE TABLE dense_vectors (
  index_id bigint NOT NULL,
  field text COLLATE "C" NOT NULL,
  doc_key bigint NOT NULL,
  vec bytea NOT NULL,
  PRIMARY KEY (index_id, field, doc_key)
);
-- Vectors are not compressible; keep them inline (a 384-dim float vector is 1,536 bytes).
ALTER TABLE dense_vectors ALTER COLUMN vec SET STORAGE EXTERNAL;

-- One HNSW node per vector of an indexed (hnsw / int8_hnsw) field: its top layer and its neighbour
-- lists of every layer 0..level, as doc keys (index/hnsw-codec.ts: per layer a uint16 count, then
-- float64 doc keys). A deleted document's node stays as a tombstone (`deleted`), still a way through
-- the graph but never a result, and keeps its dense_vectors row until the graph is repaired.
-- Small rows on their own so that the frequent rewrites of neighbour lists do not rewrite vectors.
CREATE TABLE hnsw_nodes (
  index_id bigint NOT NULL,
  field text COLLATE "C" NOT NULL,
  doc_key bigint NOT NULL,
  level smallint NOT NULL,
  neighbours bytea NOT NULL,
  deleted boolean NOT NULL DEFAULT false,
  PRIMARY KEY (index_id, field, doc_key)
) WITH (fillfactor = 70);

-- One row per graph: the entry point (a node on the top layer), and `token`, which every write to the
-- graph replaces (the in-process graph caches are valid only for tokens they went through).
CREATE TABLE hnsw_graphs (
  index_id bigint NOT NULL,
  field text COLLATE "C" NOT NULL,
  entry_doc_key bigint,
  max_level smallint NOT NULL DEFAULT -1,
  token uuid NOT NULL,
  PRIMARY KEY (index_id, field)
);

-- Down Migration
DROP TABLE hnsw_graphs;
DROP TABLE hnsw_nodes;
DROP TABLE dense_vectors;
