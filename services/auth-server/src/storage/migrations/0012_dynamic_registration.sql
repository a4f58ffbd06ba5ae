-- Up Migration
-- RFC 7591 §3 initial access tokens, issued by the admin API: only their keyed hash is kept; each lets
-- `uses_remaining` more clients register before `expires_at`.
CREATE TABLE initial_access_tokens (
  id uuid PRIMARY KEY,
  token_hash bytea NOT NULL UNIQUE,
  uses_remaining integer NOT NULL CHECK (uses_remaining >= 0),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- RFC 7592 §3: the registration access token of a dynamically registered client (keyed hash) and the
-- metadata kept for it only (logo_uri, contacts…); gone with the client.
CREATE TABLE client_registrations (
  client_id text PRIMARY KEY REFERENCES clients (client_id) ON DELETE CASCADE,
  registration_token_hash bytea NOT NULL,
  extra_metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE client_registrations;
DROP TABLE initial_access_tokens;
