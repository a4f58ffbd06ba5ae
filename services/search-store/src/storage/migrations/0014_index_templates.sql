-- Up Migration
-- Composable index templates and component templates (ES "Index templates", issue 20): cluster
-- metadata every instance must see, so they live in Postgres. `body` is the template as GET shows it
-- (settings flat, mappings parsed), kept as `json` so key order is the one it was stored with.
CREATE TABLE index_templates (
  name text PRIMARY KEY,
  body json NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE component_templates (
  name text PRIMARY KEY,
  body json NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE component_templates;
DROP TABLE index_templates;
