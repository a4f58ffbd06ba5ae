-- Up Migration
-- RFC 7523 client authentication (private_key_jwt): the method a client registered and its public keys.
-- Existing rows keep what they did: a secret for confidential clients, none for public ones.
ALTER TABLE clients
  ADD COLUMN token_endpoint_auth_method text NOT NULL DEFAULT 'client_secret_basic'
    CHECK (token_endpoint_auth_method IN ('client_secret_basic', 'private_key_jwt', 'none')),
  ADD COLUMN jwks jsonb,                                   -- RFC 7591 §2, public keys only
  ADD COLUMN jwks_uri text,                                -- RFC 7591 §2, never with jwks
  ADD CONSTRAINT clients_private_key_jwt_has_keys
    CHECK (token_endpoint_auth_method <> 'private_key_jwt' OR (jwks IS NULL) <> (jwks_uri IS NULL));
UPDATE clients SET token_endpoint_auth_method = 'none' WHERE client_type = 'public';
-- 0002's "a confidential client has a secret" (its first unnamed check): a private_key_jwt one has keys instead.
ALTER TABLE clients
  DROP CONSTRAINT clients_check,
  ADD CONSTRAINT clients_secret_or_keys
    CHECK (client_type = 'public' OR secret_hash IS NOT NULL OR token_endpoint_auth_method = 'private_key_jwt');

-- Down Migration
DELETE FROM clients WHERE token_endpoint_auth_method = 'private_key_jwt';
ALTER TABLE clients
  DROP CONSTRAINT clients_secret_or_keys,
  ADD CONSTRAINT clients_check CHECK (client_type = 'public' OR secret_hash IS NOT NULL),
  DROP CONSTRAINT clients_private_key_jwt_has_keys,
  DROP COLUMN jwks_uri,
  DROP COLUMN jwks,
  DROP COLUMN token_endpoint_auth_method;
