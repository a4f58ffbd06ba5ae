-- Up Migration
-- The catalog (reference tables under Citus) and the documents (distributed by index_id).
-- Every per-index table leads with index_id so that one index's documents, postings and doc values
-- co-locate under one distribution column (see DESIGN.md, "Beyond one machine").

CREATE TABLE cluster_settings (
  key text PRIMARY KEY,                 -- flat name, e.g. action.destructive_requires_name
  value text NOT NULL,                  -- Elasticsearch returns setting values as strings
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE indices (
  index_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE,
  uuid text NOT NULL UNIQUE,            -- 22-char base64url, as Elasticsearch shows it
  mappings jsonb NOT NULL DEFAULT '{}', -- the Elasticsearch mapping as GET /_mapping returns it
  settings jsonb NOT NULL DEFAULT '{}', -- flat index settings ("index.number_of_shards": "1", …)
  blocks_write boolean NOT NULL DEFAULT false,
  -- Last _seq_no handed out; a write batch reserves a range with one UPDATE … RETURNING.
  max_seq_no bigint NOT NULL DEFAULT -1,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE aliases (
  alias text NOT NULL,
  index_id bigint NOT NULL REFERENCES indices (index_id) ON DELETE CASCADE,
  is_write_index boolean,
  filter jsonb,
  index_routing text,
  search_routing text,
  PRIMARY KEY (alias, index_id)
);
CREATE INDEX aliases_index_id ON aliases (index_id);

-- doc_key is the document's internal number: from one sequence, never reused (a replaced or
-- deleted document's postings can never be mistaken for a new one's).
CREATE SEQUENCE doc_key_seq AS bigint;

CREATE TABLE documents (
  index_id bigint NOT NULL REFERENCES indices (index_id) ON DELETE CASCADE,
  doc_key bigint NOT NULL DEFAULT nextval('doc_key_seq'),
  id text NOT NULL,                     -- the Elasticsearch _id
  -- json, not jsonb: _source comes back exactly as it was sent (key order kept), as in Elasticsearch.
  source json NOT NULL,
  version bigint NOT NULL,
  seq_no bigint NOT NULL,
  primary_term bigint NOT NULL DEFAULT 1,
  PRIMARY KEY (index_id, doc_key),
  UNIQUE (index_id, id)
) WITH (fillfactor = 90);

-- Down Migration
DROP TABLE documents;
DROP SEQUENCE doc_key_seq;
DROP TABLE aliases;
DROP TABLE indices;
DROP TABLE cluster_settings;
