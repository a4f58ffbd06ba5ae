-- Up Migration
-- A step-up for acr_values (OIDC Core §3.1.2.1) remembers the level it must reach, so the second-factor page
-- offers only the factors that reach it (a TOTP code cannot raise a session to `phr`; a synced passkey cannot
-- reach `phrh`) and refuses the others. NULL: a sign-in after the password, where any second factor will do.
ALTER TABLE mfa_challenges ADD COLUMN wanted_acr text;

-- Down Migration
ALTER TABLE mfa_challenges DROP COLUMN wanted_acr;
