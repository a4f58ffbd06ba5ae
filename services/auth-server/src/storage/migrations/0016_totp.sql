-- Up Migration
-- TOTP second factor (RFC 6238), its recovery codes, and the half-signed-in state between the password and
-- the second factor (docs/FLOWS.md#multi-factor-sign-in).

-- One authenticator app per user. The shared secret is sealed (AES-256-GCM under an HKDF key of its own from
-- TOKEN_SIGNING_SECRET, base64(iv ‖ tag ‖ ciphertext)): checking a code needs the secret itself, so it cannot be
-- hashed; a database dump alone does not yield it. confirmed_at NULL: enrolment started, not a factor yet.
-- last_time_step: the RFC 6238 time step of the last accepted code; a code of that step or an earlier one is
-- refused (§5.2: a code is accepted once).
CREATE TABLE user_totp (
  user_id uuid PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
  secret_ciphertext text NOT NULL,
  confirmed_at timestamptz,
  last_time_step bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Single-use recovery codes, shown once: only their keyed hash (HMAC-SHA-256 under an HKDF key) is kept.
CREATE TABLE recovery_codes (
  user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- A password (or session) awaiting its second factor: keyed by the hash of a random cookie value, bound to
-- that browser; expires in minutes. session_hash set: a step-up of that session; NULL: a sign-in.
CREATE TABLE mfa_challenges (
  challenge_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  amr text[] NOT NULL,
  session_hash bytea,
  return_to text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX mfa_challenges_expiry ON mfa_challenges (expires_at);

-- Down Migration
DROP TABLE mfa_challenges;
DROP TABLE recovery_codes;
DROP TABLE user_totp;
