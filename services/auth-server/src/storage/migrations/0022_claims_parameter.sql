-- Up Migration
-- The OpenID Connect `claims` request parameter (OIDC Core 1.0 §5.5). A grant keeps what its authorization
-- request asked for, so the ID token of the code, those of every refresh and the UserInfo answers agree:
-- {"id_token": [claim names], "userinfo": [claim names], "acr": "<the acr its ID tokens carry>"}. NULL
-- for a grant whose request had no `claims` (and for every grant before this migration).
ALTER TABLE grants ADD COLUMN claims jsonb CHECK (octet_length(claims::text) <= 4096);

-- The user claims a user approved for a client by name (a `claims` request beyond its scopes), remembered
-- like the scopes beside them: a later request for the same claims skips the consent page.
ALTER TABLE consents ADD COLUMN claims text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE consents DROP COLUMN claims;
ALTER TABLE grants DROP COLUMN claims;
