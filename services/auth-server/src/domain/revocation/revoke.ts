import type { AuthContext } from '../auth-context';
import type { GrantFilter } from '../../storage/grants.repo';

/**
 * Every revocation path ends here, so the introspection cache is cleared for exactly the tokens touched,
 * on this instance, in Redis and (pub/sub, one message per call) on every other instance, before the
 * caller answers. `{ user_id, client_id }` is the account page's "revoke this app".
 */
export async function revokeGrants(ctx: AuthContext, filter: GrantFilter, reason: string) {
  const result = await ctx.repos.grants.revokeWhere(filter, reason);
  await ctx.cache.invalidate(result.tokenHashes);
  ctx.audit('revocation', {
    by: Object.keys(filter).join('+'),
    reason,
    grants: result.grantIds.length,
    tokens: result.tokenHashes.length,
  });
  return { grants: result.grantIds.length, tokens: result.tokenHashes.length };
}

export async function revokeFamily(ctx: AuthContext, familyId: string, reason: string): Promise<number> {
  const hashes = await ctx.repos.tokens.revokeFamily(familyId);
  await ctx.cache.invalidate(hashes);
  ctx.audit('revocation', { by: 'family', reason, tokens: hashes.length });
  return hashes.length;
}

export async function revokeTokenHash(ctx: AuthContext, tokenHash: Buffer, reason: string): Promise<number> {
  const hashes = await ctx.repos.tokens.revokeByHash(tokenHash);
  await ctx.cache.invalidate(hashes.length ? hashes : [tokenHash]);
  ctx.audit('revocation', { by: 'token', reason, tokens: hashes.length });
  return hashes.length;
}
