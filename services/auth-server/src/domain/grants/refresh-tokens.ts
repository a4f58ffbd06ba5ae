import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../../storage/clients.repo';
import { issueTokens, type TokenResponse } from '../tokens/issue-tokens';
import { revokeFamily } from '../revocation/revoke';
import { parseScope } from './parse-scope';

/**
 * RFC 6749 §6 with rotation and reuse detection (RFC 9700 §4.14.2): each use returns a new refresh token
 * in the same family; reusing a rotated one revokes the whole family, except a retry by the same client
 * within REFRESH_REUSE_GRACE_SECONDS (a lost response). Scope may only narrow (§6: else invalid_scope).
 * When the grant has openid (and the refreshed scope keeps it) a new ID token comes too (OIDC Core §12.2).
 */
export async function refreshTokens(
  ctx: AuthContext,
  client: Client,
  params: { refresh_token?: string; scope?: string },
): Promise<TokenResponse> {
  if (!client.grantTypes.includes('refresh_token'))
    throw new OAuthError('unauthorized_client', 'refresh_token is not allowed for this client');
  if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
  const hash = ctx.hasher.hash(params.refresh_token);
  const record = await ctx.repos.tokens.findByHash(hash);
  if (!record || record.kind !== 'refresh_token' || record.clientId !== client.clientId)
    throw new OAuthError('invalid_grant', 'unknown refresh token');
  if (record.revokedAt || record.grantRevokedAt)
    throw new OAuthError('invalid_grant', 'refresh token revoked');
  if (record.expiresAt && record.expiresAt <= new Date())
    throw new OAuthError('invalid_grant', 'refresh token expired');
  const idle = client.refreshIdleTtlSeconds;
  const lastUse = record.lastUsedAt ?? record.issuedAt;
  if (idle && Date.now() - lastUse.getTime() > idle * 1000)
    throw new OAuthError('invalid_grant', 'refresh token expired after inactivity');
  const rotated = record.rotatedAt ? false : await ctx.repos.tokens.markRotated(hash);
  if (!rotated) {
    // Lost a race with a concurrent rotation (possibly on another instance): the record we read was not
    // rotated yet, so take the winner's rotated_at from the database, never "now". Without a grace window
    // every second use is a reuse, even within the same millisecond.
    const rotatedAt = record.rotatedAt ?? (await ctx.repos.tokens.findByHash(hash))?.rotatedAt ?? new Date(0);
    const graceMs = ctx.config.REFRESH_REUSE_GRACE_SECONDS * 1000;
    if (graceMs === 0 || Date.now() - rotatedAt.getTime() > graceMs) {
      ctx.audit('refresh_reuse', { client_id: client.clientId, grant_id: record.grantId });
      if (record.familyId) await revokeFamily(ctx, record.familyId, 'refresh_reuse');
      throw new OAuthError('invalid_grant', 'refresh token already used');
    }
  } else {
    await ctx.cache.invalidate([hash]);
  }
  const scopes = params.scope === undefined ? record.scopes : parseScope(params.scope);
  if (scopes.some((s) => !record.scopes.includes(s)))
    throw new OAuthError('invalid_scope', 'scope exceeds the original grant');
  const issued = await issueTokens(ctx, {
    client,
    grantId: record.grantId,
    userId: record.userId,
    scopes,
    audience: record.audience,
    familyId: record.familyId ?? undefined,
    withRefresh: true,
    // OIDC Core §12.2: a new ID token with the original sub and auth_time, and no nonce.
    ...(record.grantAuthTime ? { idToken: { nonce: null, authTime: record.grantAuthTime } } : {}),
  });
  // A concurrent reuse may have revoked the family between our read and our insert: the new tokens
  // are committed now, so revoking the family again covers them (the reuse always wins).
  const after = await ctx.repos.tokens.findByHash(hash);
  if (after?.revokedAt && record.familyId) {
    await revokeFamily(ctx, record.familyId, 'refresh_reuse');
    throw new OAuthError('invalid_grant', 'refresh token already used');
  }
  return issued;
}
