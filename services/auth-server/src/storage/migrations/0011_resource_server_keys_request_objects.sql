-- Up Migration
-- RFC 7523 private_key_jwt for resource servers at /token_info: their public keys (as clients', 0008).
-- The secret stays: a resource server with keys may still use Basic.
ALTER TABLE resource_servers
  ADD COLUMN jwks jsonb,                                   -- RFC 7591 §2 form, public keys only
  ADD COLUMN jwks_uri text,
  ADD CONSTRAINT resource_servers_one_key_source CHECK (jwks IS NULL OR jwks_uri IS NULL);
-- RFC 9101 §10.5 / OIDC Dynamic Client Registration §2: this client's authorization requests come signed.
ALTER TABLE clients ADD COLUMN require_signed_request_object boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE clients DROP COLUMN require_signed_request_object;
ALTER TABLE resource_servers
  DROP CONSTRAINT resource_servers_one_key_source,
  DROP COLUMN jwks_uri,
  DROP COLUMN jwks;
