-- Up Migration
-- The admin console (issue 25): an admin role on users, the console's own sessions, and audit events.

-- Roles a user holds; 'admin' opens /admin. An array, not a boolean, so a later role (read-only auditor…)
-- is data, not a migration. Granted and revoked through the admin API / CLI only.
ALTER TABLE users ADD COLUMN roles text[] NOT NULL DEFAULT '{}';

-- Console sessions, apart from the pages' `sessions`: a page session never opens the console and a console
-- session never signs anyone in to an app. Only the keyed hash of the cookie value is stored. Idle and
-- absolute expiry are both checked on every request (`last_seen_at`, `expires_at`).
CREATE TABLE admin_console_sessions (
  session_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX admin_console_sessions_expiry ON admin_console_sessions (expires_at);
CREATE INDEX admin_console_sessions_user ON admin_console_sessions (user_id);

-- One row per admin action, from the console, the JSON admin API or the CLI. Append-only, no foreign keys
-- (an event outlives the client or user it names), keyed by `id` alone: Citus can distribute it by `id`
-- (or keep it as an append/columnar table) without touching any statement. Never a secret in `details`.
CREATE TABLE audit_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Milliseconds, as a JavaScript Date holds them: the paging cursor (at, id) must round-trip exactly.
  at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  actor text NOT NULL,                 -- the admin's username, 'admin-token' or 'cli'
  actor_user_id uuid,                  -- the admin user, for console actions
  action text NOT NULL,                -- e.g. client.create, client.secret_rotate, user.disable
  target_type text NOT NULL,           -- client, resource_server, user, grant, session, signing_key
  target_id text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  source_ip text
);
-- Newest first, keyset paging on (at, id).
CREATE INDEX audit_events_at ON audit_events (at DESC, id DESC);

-- Down Migration
DROP TABLE audit_events;
DROP TABLE admin_console_sessions;
ALTER TABLE users DROP COLUMN roles;
