-- Up Migration
-- How the user signed in: the RFC 8176 authentication method references (`amr`) and the resulting
-- authentication context class (`acr`, OIDC Core §2; values in domain/sessions/authentication-methods.ts).
-- A session records them at sign-in (and on a step-up); each grant copies its session's, so an ID token
-- issued on refresh (OIDC Core §12.2) carries the same amr/acr, as it carries the same auth_time.
-- Every session before this migration was a password sign-in: the defaults fill those rows, then go, so new
-- code must say how its session was made.
ALTER TABLE sessions
  ADD COLUMN amr text[] NOT NULL DEFAULT '{pwd}',
  ADD COLUMN acr text NOT NULL DEFAULT 'urn:acme:acr:1fa';
ALTER TABLE sessions ALTER COLUMN amr DROP DEFAULT, ALTER COLUMN acr DROP DEFAULT;

-- NULL: no sign-in behind the grant (client_credentials), or a grant made before this migration (its ID
-- tokens omit amr/acr rather than guess; both claims are optional in OIDC Core §2).
ALTER TABLE grants ADD COLUMN amr text[], ADD COLUMN acr text;

-- Down Migration
ALTER TABLE grants DROP COLUMN amr, DROP COLUMN acr;
ALTER TABLE sessions DROP COLUMN amr, DROP COLUMN acr;
