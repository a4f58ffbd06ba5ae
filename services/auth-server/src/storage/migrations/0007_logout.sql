-- Up Migration
-- OpenID Connect RP-Initiated Logout 1.0 and Back-Channel Logout 1.0.
-- A browser session gets a `sid` (OIDC Back-Channel Logout §2.1): random, opaque, never the cookie value;
-- each grant records the session it was approved in, so a logout knows which clients to tell.
ALTER TABLE clients
  ADD COLUMN post_logout_redirect_uris text[] NOT NULL DEFAULT '{}',   -- RP-Initiated Logout §3.1, exact match
  ADD COLUMN backchannel_logout_uri text,                              -- Back-Channel Logout §2.2
  ADD COLUMN backchannel_logout_session_required boolean NOT NULL DEFAULT false;

ALTER TABLE sessions ADD COLUMN sid text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');
CREATE INDEX sessions_user ON sessions (user_id);

ALTER TABLE grants ADD COLUMN sid text;                               -- NULL: no browser session (device, client_credentials)
CREATE INDEX grants_sid ON grants (sid) WHERE sid IS NOT NULL;

-- Pending back-channel logout deliveries (an outbox): one row per client and session to tell. Kept in
-- Postgres so a restart does not lose them; a row leaves when delivered or after its last attempt.
CREATE TABLE backchannel_logout_deliveries (
  delivery_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  user_id uuid NOT NULL,                          -- the logout token's sub
  sid text,                                       -- the logout token's sid
  jti uuid NOT NULL DEFAULT gen_random_uuid(),    -- the same on every attempt: the RP may drop a repeat
  attempts int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX backchannel_logout_deliveries_due ON backchannel_logout_deliveries (next_attempt_at);

-- Down Migration
DROP TABLE backchannel_logout_deliveries;
DROP INDEX grants_sid;
ALTER TABLE grants DROP COLUMN sid;
DROP INDEX sessions_user;
ALTER TABLE sessions DROP COLUMN sid;
ALTER TABLE clients
  DROP COLUMN post_logout_redirect_uris,
  DROP COLUMN backchannel_logout_uri,
  DROP COLUMN backchannel_logout_session_required;
