-- Up Migration
-- Passkeys (WebAuthn Level 3, §4 "public key credential"): a user's discoverable credentials, used to sign in
-- instead of the password or as a second factor. The credential id is the authenticator's (≤ 1023 bytes,
-- WebAuthn L3 §7.1 step 25), unique across users (§7.1 step 26: a known id is refused). `user_handle` is the
-- opaque handle given at registration (HMAC of the user id, never the id or a name, §14.6.1); the assertion's
-- userHandle must equal it. `public_key` is the COSE key; `sign_count` the last signature counter (§6.1.1:
-- one that does not grow signals a cloned authenticator); `backup_eligible`/`backed_up` the BE/BS flags
-- (§6.1: a synced passkey vs one bound to a device).
CREATE TABLE passkeys (
  credential_id bytea PRIMARY KEY CHECK (octet_length(credential_id) BETWEEN 16 AND 1023),
  user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  user_handle bytea NOT NULL,
  public_key bytea NOT NULL,
  sign_count bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL,
  aaguid text NOT NULL,
  backup_eligible boolean NOT NULL,
  backed_up boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX passkeys_user ON passkeys (user_id, created_at);

-- A WebAuthn challenge (§13.4.3: random, single use, kept by the relying party) waiting for its
-- ceremony: one per browser and purpose (a new one replaces the old), bound to the browser by a keyed hash
-- of its CSRF and session cookies, and for registration to the signed-in user; taken (deleted) by the one
-- answer that uses it, whatever the outcome. Expired rows are removed as new ones are written.
CREATE TABLE passkey_challenges (
  binding_hash bytea NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('registration', 'authentication')),
  challenge text NOT NULL,
  user_id uuid REFERENCES users (user_id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (binding_hash, purpose)
);
CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);

-- Down Migration
DROP TABLE passkey_challenges;
DROP TABLE passkeys;
