-- Up Migration
-- Baseline: the catalog, documents and the inverted index come in later migrations.
CREATE TABLE IF NOT EXISTS search_instance (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  cluster_uuid uuid NOT NULL DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO search_instance (id) VALUES (1) ON CONFLICT DO NOTHING;

-- Down Migration
DROP TABLE IF EXISTS search_instance;
