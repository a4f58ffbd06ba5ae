import jwt from 'jsonwebtoken';
import type { AuthContext } from '../auth-context';
import { createResourceServerSecretEncryption } from '../crypto/key-encryption';
import type { ResourceServer } from '../clients/resource-server';
import {
  verifyAssertionKeys,
  type AssertionFailure,
  type AssertionSigner,
  type ClientAssertionDeps,
} from '../clients/verify-client-assertion';

const MAX_ASSERTION_LENGTH = 8192;

/**
 * RFC 7523 §2.2 / §3 private_key_jwt or client_secret_jwt for a resource server at /token_info (RFC 7662
 * §2.1 leaves the method open): `iss` = `sub` = its id; an HS256/384/512 assertion is checked with its
 * secret when it was registered for client_secret_jwt, any other with a key from its registered
 * `jwks`/`jwks_uri`; every other rule is a client's (verify-client-assertion.ts: algorithms per key, `aud`
 * = the issuer, `exp` ≤ 5 min, `jti` once). Its jtis are kept apart from a client's of the same id.
 */
export async function verifyResourceServerAssertion(
  ctx: AuthContext,
  deps: ClientAssertionDeps,
  assertion: string,
): Promise<{ rs: ResourceServer } | { failure: AssertionFailure | 'no_keys'; rsId?: string }> {
  if (assertion.length > MAX_ASSERTION_LENGTH) return { failure: 'malformed' };
  const decoded = jwt.decode(assertion, { complete: true });
  if (!decoded || typeof decoded.payload !== 'object') return { failure: 'malformed' };
  const rsId = decoded.payload.iss;
  // Postgres text cannot hold NUL; no resource server id is longer than 100 characters.
  if (typeof rsId !== 'string' || rsId.length > 100 || rsId.includes('\u0000'))
    return { failure: 'malformed' };
  const rs = await ctx.repos.resourceServers.findById(rsId);
  if (!rs) return { failure: 'unknown_client', rsId };
  const namespace = 'resource-server\u0000';
  let signer: AssertionSigner;
  // The header's alg only picks which registered credential to try; each carries its own algorithm list,
  // so an HS256 assertion is never checked with a public key nor an RS256 one with the secret.
  if (/^HS/.test(String(decoded.header.alg))) {
    if (!rs.secretCiphertext) return { failure: 'no_keys', rsId };
    const secret = createResourceServerSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).decrypt(
      rs.secretCiphertext,
    );
    signer = { jwks: null, jwksUri: null, namespace, hmacSecret: secret };
  } else {
    if (!rs.jwks && !rs.jwksUri) return { failure: 'no_keys', rsId };
    signer = { jwks: rs.jwks ?? null, jwksUri: rs.jwksUri ?? null, namespace };
  }
  const failure = await verifyAssertionKeys(ctx, deps, assertion, decoded.header, rsId, signer);
  return failure ? { failure, rsId } : { rs };
}
