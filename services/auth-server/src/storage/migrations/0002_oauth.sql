-- Up Migration
-- Clients, resource servers, users, grants, consents, codes, tokens, sessions and signing keys.
-- Secrets, codes and tokens are never stored in the clear: *_hash columns hold HMAC-SHA-256 under the
-- server's pepper (TOKEN_SIGNING_SECRET-derived), except user passwords, which get argon2id.

CREATE TABLE clients (
  client_id text PRIMARY KEY,
  secret_hash bytea,                              -- NULL for public clients
  name text NOT NULL,
  client_type text NOT NULL CHECK (client_type IN ('confidential', 'public')),
  application_type text NOT NULL DEFAULT 'web' CHECK (application_type IN ('web', 'native')),
  redirect_uris text[] NOT NULL DEFAULT '{}',
  grant_types text[] NOT NULL DEFAULT '{authorization_code}',
  response_types text[] NOT NULL DEFAULT '{code}',
  scopes text[] NOT NULL DEFAULT '{}',            -- scopes the client may ask for
  token_format text NOT NULL DEFAULT 'opaque' CHECK (token_format IN ('opaque', 'jwt')),
  jwt_alg text NOT NULL DEFAULT 'HS256' CHECK (jwt_alg IN ('HS256', 'RS256', 'ES256')),
  access_token_ttl_seconds int CHECK (access_token_ttl_seconds IS NULL OR access_token_ttl_seconds > 0), -- NULL: non-expiring (opaque only)
  refresh_token_ttl_seconds int,                  -- NULL: no refresh tokens for this client
  refresh_idle_ttl_seconds int,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz,
  CHECK (client_type = 'public' OR secret_hash IS NOT NULL),
  CHECK (token_format = 'opaque' OR access_token_ttl_seconds IS NOT NULL)
);

-- Resource servers (search-store, …): their own Basic credentials for /token_info, their audience
-- identifier and the scopes they serve (the introspection view, RFC 7662 §2.2).
CREATE TABLE resource_servers (
  id text PRIMARY KEY,                            -- the Basic user name
  secret_hash bytea NOT NULL,
  audience text NOT NULL UNIQUE,
  scopes text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz
);

CREATE TABLE users (
  user_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  username text NOT NULL,
  password_hash text NOT NULL,                    -- argon2id
  claims jsonb NOT NULL DEFAULT '{}',             -- name, given_name, family_name, email, email_verified, …
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz
);
CREATE UNIQUE INDEX users_username ON users (lower(username));

-- A grant: one authorization of a client, by a user (code/implicit) or by the client itself
-- (client_credentials). Every code and token points at its grant; revoking the grant revokes them all.
CREATE TABLE grants (
  grant_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  user_id uuid REFERENCES users (user_id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  resources text[] NOT NULL DEFAULT '{}',         -- RFC 8707 resource indicators / audiences
  auth_time timestamptz,                          -- the user's authentication (OIDC Core §12.2 ID token on refresh)
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  revoked_reason text
);
CREATE INDEX grants_user ON grants (user_id) WHERE revoked_at IS NULL;
CREATE INDEX grants_client ON grants (client_id) WHERE revoked_at IS NULL;
CREATE INDEX grants_created ON grants (created_at);      -- purge of grants left without tokens

-- Remembered consent per user and client (OIDC Core §3.1.2.4): the scopes already approved.
CREATE TABLE consents (
  user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, client_id)
);

CREATE TABLE authorization_codes (
  code_hash bytea PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES grants (grant_id) ON DELETE CASCADE,
  client_id text NOT NULL,
  user_id uuid NOT NULL,
  redirect_uri text NOT NULL,
  scopes text[] NOT NULL,
  resources text[] NOT NULL DEFAULT '{}',
  code_challenge text,
  code_challenge_method text,
  nonce text,
  auth_time timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,                        -- single use: a second redemption revokes the grant
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at);
CREATE INDEX authorization_codes_grant ON authorization_codes (grant_id);

-- Access and refresh tokens. Opaque tokens are found by token_hash; JWT access tokens by jti
-- (their hash is of the jti), so a revoked JWT is inactive at /token_info though its signature is valid.
CREATE TABLE tokens (
  token_hash bytea PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('access_token', 'refresh_token')),
  format text NOT NULL CHECK (format IN ('opaque', 'jwt')),
  jti text UNIQUE,
  grant_id uuid NOT NULL REFERENCES grants (grant_id) ON DELETE CASCADE,
  client_id text NOT NULL,
  user_id uuid,
  scopes text[] NOT NULL,
  audience text[] NOT NULL DEFAULT '{}',
  family_id uuid,                                 -- refresh rotation family (RFC 9700 §4.14.2)
  code_hash bytea,                                -- the code it was issued from (replay revokes it)
  issued_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,                         -- NULL: non-expiring (opaque access tokens only)
  last_used_at timestamptz,
  rotated_at timestamptz,                         -- refresh token replaced by a newer one
  revoked_at timestamptz
);
CREATE INDEX tokens_grant ON tokens (grant_id);
CREATE INDEX tokens_family ON tokens (family_id) WHERE family_id IS NOT NULL;
CREATE INDEX tokens_expiry ON tokens (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX tokens_user ON tokens (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX tokens_client ON tokens (client_id);
CREATE INDEX tokens_code ON tokens (code_hash) WHERE code_hash IS NOT NULL;

-- Browser sessions of signed-in users (shared across instances behind a load balancer).
CREATE TABLE sessions (
  session_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  auth_time timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- Asymmetric signing keys (ID tokens, RS256/ES256 access tokens). Retired keys stay in the JWKS until
-- every token they signed has expired.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL CHECK (alg IN ('RS256', 'ES256')),
  private_key_sealed text NOT NULL,               -- PKCS#8 PEM, AES-256-GCM under a TOKEN_SIGNING_SECRET-derived key
  public_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz,
  expires_at timestamptz                          -- drop from JWKS after this
);

-- Down Migration
DROP TABLE signing_keys;
DROP TABLE sessions;
DROP TABLE tokens;
DROP TABLE authorization_codes;
DROP TABLE consents;
DROP TABLE grants;
DROP TABLE users;
DROP TABLE resource_servers;
DROP TABLE clients;
