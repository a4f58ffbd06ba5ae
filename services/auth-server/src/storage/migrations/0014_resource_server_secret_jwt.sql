-- Up Migration
-- client_secret_jwt (RFC 7523 §2.2) for resource servers at /token_info: the HMAC key is the secret itself, so
-- a resource server registered for it also keeps its secret sealed (AES-256-GCM under an HKDF key from
-- TOKEN_SIGNING_SECRET, base64(iv ‖ tag ‖ ciphertext)), as clients do since 0013. NULL: Basic (and any
-- registered keys) only; every other resource server keeps the keyed hash alone.
ALTER TABLE resource_servers ADD COLUMN secret_ciphertext text;

-- Down Migration
ALTER TABLE resource_servers DROP COLUMN secret_ciphertext;
