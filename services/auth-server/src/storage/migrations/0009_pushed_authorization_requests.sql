-- Up Migration
-- RFC 9126 Pushed Authorization Requests. (0008 is client-jwt's, landing in parallel.)
-- A client may be made to use PAR for every authorization request (RFC 9126 §6).
ALTER TABLE clients ADD COLUMN require_pushed_authorization_requests boolean NOT NULL DEFAULT false;

-- A pushed request: keyed by the keyed hash of the request_uri's random part (never stored in the clear),
-- its client, the validated authorization parameters, and its lifetime. A row is used up when an
-- authorization completes from it (consumed_at); purged with the expired codes.
CREATE TABLE pushed_authorization_requests (
  request_hash bytea PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  params jsonb NOT NULL,
  expires_at timestamptz NOT NULL,
  first_used_at timestamptz,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pushed_authorization_requests_expires ON pushed_authorization_requests (expires_at);

-- Down Migration
DROP TABLE pushed_authorization_requests;
ALTER TABLE clients DROP COLUMN require_pushed_authorization_requests;
