import type { AuthContext } from '../auth-context';
import type { GrantFilter } from '../grants/grant';
import type { RevokedToken } from '../tokens/token-record';
import { publicTokenId } from '../tokens/public-token-id';

/** Largest jti list in one event: a client-wide revocation becomes several events, none huge. */
const JTI_PER_EVENT = 500;

/**
 * Every revocation path ends here, so the introspection cache is cleared for exactly the tokens touched,
 * on this instance, in Redis and (pub/sub, one message per call) on every other instance, and resource
 * servers subscribed to /revocations/stream are told, before the caller answers. `{ user_id, client_id }`
 * is the account page's "revoke this app".
 */
export async function revokeGrants(ctx: AuthContext, filter: GrantFilter, reason: string) {
  const result = await ctx.repos.grants.revokeWhere(filter, reason);
  await ctx.cache.invalidate(result.tokenHashes);
  announce(ctx, result.tokens, reason, {
    ...(filter.grant_id === undefined && filter.user_id !== undefined ? { sub: filter.user_id } : {}),
    ...(filter.grant_id === undefined && filter.client_id !== undefined
      ? { client_id: filter.client_id }
      : {}),
  });
  ctx.audit('revocation', {
    by: Object.keys(filter).join('+'),
    reason,
    grants: result.grantIds.length,
    tokens: result.tokenHashes.length,
  });
  return { grants: result.grantIds.length, tokens: result.tokenHashes.length };
}

/**
 * RFC 9700 §4.14.2: the whole family. Run twice: a rotation committing while the first statement waited
 * on its row lock inserted tokens that statement's snapshot could not see; the second one sees them.
 */
export async function revokeFamily(ctx: AuthContext, familyId: string, reason: string): Promise<number> {
  const revoked = await ctx.repos.tokens.revokeFamily(familyId);
  revoked.push(...(await ctx.repos.tokens.revokeFamily(familyId)));
  await ctx.cache.invalidate(revoked.map((t) => t.tokenHash));
  announce(ctx, revoked, reason);
  ctx.audit('revocation', { by: 'family', reason, tokens: revoked.length });
  return revoked.length;
}

export async function revokeTokenHash(ctx: AuthContext, tokenHash: Buffer, reason: string): Promise<number> {
  const revoked = await ctx.repos.tokens.revokeByHash(tokenHash);
  await ctx.cache.invalidate(revoked.length ? revoked.map((t) => t.tokenHash) : [tokenHash]);
  announce(ctx, revoked, reason);
  ctx.audit('revocation', { by: 'token', reason, tokens: revoked.length });
  return revoked.length;
}

/** Refresh tokens are never active at a resource server (RFC 6749 §1.5): only access tokens are news. */
function announce(
  ctx: AuthContext,
  revoked: RevokedToken[],
  reason: string,
  scope: { sub?: string; client_id?: string } = {},
): void {
  const jti = revoked.filter((t) => t.kind === 'access_token').map((t) => publicTokenId(ctx.hasher, t));
  if (jti.length === 0 && scope.sub === undefined && scope.client_id === undefined) return;
  for (let i = 0; i === 0 || i < jti.length; i += JTI_PER_EVENT) {
    ctx.revocations.publish({ jti: jti.slice(i, i + JTI_PER_EVENT), ...scope, reason });
  }
}
