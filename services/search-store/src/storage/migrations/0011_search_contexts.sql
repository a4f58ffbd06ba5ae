-- Up Migration
-- Scroll and point-in-time contexts (issue 20): a context is a Postgres snapshot exported by a
-- holder transaction of the instance that opened it (`owner`); any instance imports it with
-- SET TRANSACTION SNAPSHOT to serve the next page, so the state lives here, not in a process.
-- A scroll keeps its request and the sort values of its last hit (`position`); a PIT keeps its
-- index expression only. `expires_at` moves on at each use (ES keep-alive); the owner's sweep
-- ends holders whose contexts are all gone or expired.
CREATE TABLE search_contexts (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('scroll', 'pit')),
  snapshot text NOT NULL,
  owner uuid NOT NULL,
  holder uuid NOT NULL,
  -- The user that opened it (auth/context-user.ts): only that user may use or free it.
  owner_user text,
  target jsonb NOT NULL,
  request jsonb,
  position jsonb,
  keep_alive_ms bigint NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX search_contexts_owner ON search_contexts (owner, holder);
CREATE INDEX search_contexts_expiry ON search_contexts (expires_at);

-- Down Migration
DROP TABLE search_contexts;
