import jwt from 'jsonwebtoken';
import type { AuthContext } from '../auth-context';
import type { ResourceServer } from '../clients/resource-server';
import {
  verifyAssertionKeys,
  type AssertionFailure,
  type ClientAssertionDeps,
} from '../clients/verify-client-assertion';

const MAX_ASSERTION_LENGTH = 8192;

/**
 * RFC 7523 §2.2 / §3 private_key_jwt for a resource server at /token_info (RFC 7662 §2.1 leaves the
 * method open): `iss` = `sub` = its id, a key from its registered `jwks`/`jwks_uri`, and every other
 * rule of a client's assertion (verify-client-assertion.ts: algorithms per key, `aud`, `exp` ≤ 5 min,
 * `jti` once). Its jtis are kept apart from a client's of the same id.
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
  if (!rs.jwks && !rs.jwksUri) return { failure: 'no_keys', rsId };
  const failure = await verifyAssertionKeys(ctx, deps, assertion, decoded.header.kid, rsId, {
    jwks: rs.jwks ?? null,
    jwksUri: rs.jwksUri ?? null,
    namespace: 'resource-server\u0000',
  });
  return failure ? { failure, rsId } : { rs };
}
