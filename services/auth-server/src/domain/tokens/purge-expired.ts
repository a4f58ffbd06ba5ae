import type { AuthContext } from '../auth-context';

/**
 * Deletes tokens, codes, device authorizations, pushed authorization requests and initial access tokens that expired more than `graceSeconds` ago, in batches, then the grants left
 * with neither (a client_credentials call makes one each), so the tables do not grow without bound
 * (API-NOTES B3 #1). An expired token is inactive either way; deleting it changes
 * no answer.
 */
export async function purgeExpired(
  ctx: AuthContext,
  graceSeconds = 86_400,
): Promise<{ tokens: number; codes: number; devices: number; pushed: number; grants: number }> {
  const before = new Date(Date.now() - graceSeconds * 1000);
  let tokens = 0;
  for (;;) {
    const deleted = await ctx.repos.tokens.deleteExpired(before, 10_000);
    tokens += deleted;
    if (deleted < 10_000) break;
  }
  const codes = await ctx.repos.codes.deleteExpired(before);
  const devices = await ctx.repos.deviceAuthorizations.deleteExpired(before);
  const pushed = await ctx.repos.pushedRequests.deleteExpired(before);
  const grants = await ctx.repos.grants.deleteOrphans(before);
  // Sealed refresh replays outlive their window only until here (they are tiny and few).
  await ctx.repos.refreshReplays.deleteExpired();
  await ctx.repos.registrations.deleteExpiredInitialTokens(before);
  return { tokens, codes, devices, pushed, grants };
}
