-- Up Migration
-- Device authorization grant (RFC 8628): one row per POST /device_authorization, from pending to approved
-- or denied by the user on /device, then consumed by the device's successful poll at /token.
-- Keyed by the keyed hash of the user code alone: the user code is derived from the device code
-- (domain/device/user-code.ts), so both the page (user code) and the poll (device code) find the row by
-- this one key, and it is the distribution column should the table be distributed (Citus needs every
-- unique key to contain it, and each statement here filters on it). Neither code is stored in the clear:
-- both are HMAC-SHA-256 under the server's pepper, like the other codes and tokens.
CREATE TABLE device_authorizations (
  user_code_hash bytea PRIMARY KEY,
  device_code_hash bytea NOT NULL,
  client_id text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  resources text[] NOT NULL DEFAULT '{}',        -- RFC 8707 audiences, resolved at the request
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
  user_id uuid REFERENCES users (user_id) ON DELETE CASCADE,   -- who approved or denied
  grant_id uuid REFERENCES grants (grant_id) ON DELETE CASCADE, -- made on approval; revoking it refuses the poll
  auth_time timestamptz,                         -- the approver's authentication (ID token auth_time)
  interval_seconds int NOT NULL CHECK (interval_seconds > 0), -- RFC 8628 §3.5: +5 at each slow_down
  last_polled_at timestamptz,
  expires_at timestamptz NOT NULL,
  decided_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (status = 'pending' OR user_id IS NOT NULL),
  CHECK (status NOT IN ('approved', 'consumed') OR grant_id IS NOT NULL)
);
CREATE INDEX device_authorizations_expiry ON device_authorizations (expires_at);
-- The ON DELETE CASCADE from grants (orphan purge) looks rows up by grant.
CREATE INDEX device_authorizations_grant ON device_authorizations (grant_id) WHERE grant_id IS NOT NULL;

-- Down Migration
DROP TABLE device_authorizations;
