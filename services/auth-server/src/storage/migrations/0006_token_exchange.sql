-- Up Migration
-- Token exchange (RFC 8693): a token issued by an exchange with an actor carries the `act` claim
-- (§4.1), the actor and, nested, the prior actors of the subject token. Stored with the token so
-- introspection (RFC 7662 §2.2 lets it carry any JWT claim) and the JWT show the same delegation chain.
-- NULL for every other token.
ALTER TABLE tokens ADD COLUMN act jsonb;

-- Down Migration
ALTER TABLE tokens DROP COLUMN act;
