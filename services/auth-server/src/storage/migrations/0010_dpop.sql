-- Up Migration
-- RFC 9449 DPoP. A token bound to a key stores the key's RFC 7638 thumbprint: access tokens (opaque ones
-- have no cnf claim of their own; introspection answers it, §6.2) and public clients' refresh tokens (§5).
ALTER TABLE tokens ADD COLUMN dpop_jkt text;
-- §10: the authorization request's dpop_jkt binds the code to that key.
ALTER TABLE authorization_codes ADD COLUMN dpop_jkt text;
-- §5.2 client metadata dpop_bound_access_tokens: /token refuses this client's requests without a proof.
ALTER TABLE clients ADD COLUMN dpop_bound_access_tokens boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE clients DROP COLUMN dpop_bound_access_tokens;
ALTER TABLE authorization_codes DROP COLUMN dpop_jkt;
ALTER TABLE tokens DROP COLUMN dpop_jkt;
