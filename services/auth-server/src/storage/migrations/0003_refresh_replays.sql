-- Up Migration
-- The winner's token response of a refresh rotation, kept for REFRESH_REUSE_GRACE_SECONDS so a concurrent
-- loser or a client retry gets the very same answer instead of a second token set (RFC 9700 §4.14.2).
-- Sealed with AES-256-GCM under a key derived (HKDF-SHA-256) from the presented refresh token, which is
-- stored nowhere: the database alone cannot open it. Deleted with the rotated token, and once expired.
CREATE TABLE refresh_replays (
  token_hash bytea PRIMARY KEY REFERENCES tokens (token_hash) ON DELETE CASCADE,
  sealed bytea NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX refresh_replays_expiry ON refresh_replays (expires_at);

-- Down Migration
DROP TABLE refresh_replays;
