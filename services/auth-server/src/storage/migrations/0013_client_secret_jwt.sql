-- Up Migration
-- client_secret_jwt (RFC 7523 §2.2, OIDC Core §9): the server must compute an HMAC with the secret, so for
-- those clients only the secret is also kept sealed (AES-256-GCM under an HKDF key from TOKEN_SIGNING_SECRET,
-- base64(iv ‖ tag ‖ ciphertext)); every other client keeps the keyed hash alone.
ALTER TABLE clients
  DROP CONSTRAINT clients_token_endpoint_auth_method_check,
  ADD CONSTRAINT clients_token_endpoint_auth_method_check CHECK (token_endpoint_auth_method IN
    ('client_secret_basic', 'client_secret_jwt', 'private_key_jwt', 'none')),
  ADD COLUMN secret_ciphertext text,
  ADD CONSTRAINT clients_secret_jwt_has_sealed_secret CHECK (
    (token_endpoint_auth_method = 'client_secret_jwt') = (secret_ciphertext IS NOT NULL)
    AND (token_endpoint_auth_method <> 'client_secret_jwt' OR secret_hash IS NOT NULL));

-- Down Migration
DELETE FROM clients WHERE token_endpoint_auth_method = 'client_secret_jwt';
ALTER TABLE clients
  DROP CONSTRAINT clients_secret_jwt_has_sealed_secret,
  DROP COLUMN secret_ciphertext,
  DROP CONSTRAINT clients_token_endpoint_auth_method_check,
  ADD CONSTRAINT clients_token_endpoint_auth_method_check CHECK (token_endpoint_auth_method IN
    ('client_secret_basic', 'private_key_jwt', 'none'));
