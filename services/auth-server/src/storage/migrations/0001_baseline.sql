-- Up Migration
-- Baseline: later migrations add clients, users, codes, tokens, grants and keys.
CREATE TABLE IF NOT EXISTS auth_instance (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO auth_instance (id) VALUES (1) ON CONFLICT DO NOTHING;

-- Down Migration
DROP TABLE IF EXISTS auth_instance;
