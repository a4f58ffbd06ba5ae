import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import type { TokenRecord } from '../tokens/token-record';
import { createReplaySealer, type ReplaySealer } from '../crypto/replay-sealer';
import { issueTokens, type TokenResponse } from '../tokens/issue-tokens';
import { revokeFamily } from '../revocation/revoke';
import { parseScope } from './parse-scope';
import type { DpopBinding } from '../dpop/token-dpop';

/**
 * RFC 6749 §6 with rotation and reuse detection (RFC 9700 §4.14.2). Exactly one use of a refresh token
 * rotates it, on any number of instances: the atomic `markRotated`, the new tokens and (with a grace
 * window) the sealed response commit in one transaction, so a concurrent request blocks on the row
 * until the winner commits and then finds it rotated.
 * - Within REFRESH_REUSE_GRACE_SECONDS a concurrent loser or a client retry gets the winner's very
 *   response (idempotent replay): one new refresh token exists, and every caller holds it.
 * - With grace 0 a truly concurrent loser (it read the token unrotated) gets invalid_grant and the
 *   winner keeps working; any later use is a reuse.
 * - A reuse after the window revokes the whole family.
 * Scope may only narrow (§6: else invalid_scope), checked before rotating so a bad request burns nothing.
 * When the grant has openid (and the refreshed scope keeps it) a new ID token comes too (OIDC Core §12.2).
 * A DPoP-bound refresh token (public clients, RFC 9449 §5.0) needs a proof of its key.
 */
export async function refreshTokens(
  ctx: AuthContext,
  client: Client,
  params: { refresh_token?: string; scope?: string },
  dpop?: DpopBinding,
): Promise<TokenResponse> {
  if (!client.grantTypes.includes('refresh_token'))
    throw new OAuthError('unauthorized_client', 'refresh_token is not allowed for this client');
  const token = params.refresh_token;
  if (!token) throw new OAuthError('invalid_request', 'refresh_token is required');
  const hash = ctx.hasher.hash(token);
  const record = await ctx.repos.tokens.findByHash(hash);
  if (!record || record.kind !== 'refresh_token' || record.clientId !== client.clientId)
    throw new OAuthError('invalid_grant', 'unknown refresh token');
  // RFC 9449 §5.0: a public client's refresh token bound to a DPoP key is used only with a proof of
  // that key. Checked before rotation state, so a thief without the key cannot trigger reuse revocation.
  if (record.dpopJkt && record.dpopJkt !== dpop?.jkt)
    throw new OAuthError('invalid_grant', 'refresh token is bound to another DPoP key');
  if (record.revokedAt || record.grantRevokedAt)
    throw new OAuthError('invalid_grant', 'refresh token revoked');
  if (record.expiresAt && record.expiresAt <= new Date())
    throw new OAuthError('invalid_grant', 'refresh token expired');
  if (record.rotatedAt) return replayOrRevoke(ctx, token, record);
  const idle = client.refreshIdleTtlSeconds;
  const lastUse = record.lastUsedAt ?? record.issuedAt;
  if (idle && Date.now() - lastUse.getTime() > idle * 1000)
    throw new OAuthError('invalid_grant', 'refresh token expired after inactivity');
  const scopes = params.scope === undefined ? record.scopes : parseScope(params.scope);
  if (scopes.some((s) => !record.scopes.includes(s)))
    throw new OAuthError('invalid_scope', 'scope exceeds the original grant');

  const graceSeconds = ctx.config.REFRESH_REUSE_GRACE_SECONDS;
  const issued = await ctx.transaction(async (repos) => {
    if (!(await repos.tokens.markRotated(hash))) return undefined;
    const response = await issueTokens(
      { ...ctx, repos },
      {
        client,
        grantId: record.grantId,
        userId: record.userId,
        scopes,
        audience: record.audience,
        familyId: record.familyId ?? undefined,
        withRefresh: true,
        ...(dpop ? { dpop } : {}),
        // OIDC Core §12.2: a new ID token with the original sub and auth_time, and no nonce.
        ...(record.grantAuthTime ? { idToken: { nonce: null, authTime: record.grantAuthTime } } : {}),
      },
    );
    if (graceSeconds > 0) {
      const sealed = sealerFor(ctx).seal(token, hash, JSON.stringify(response));
      await repos.refreshReplays.save(hash, sealed, graceSeconds);
    }
    return response;
  });
  if (issued) {
    await ctx.cache.invalidate([hash]);
    return issued;
  }
  return answerConcurrentLoser(ctx, token, record);
}

/**
 * We read the token unrotated and lost the atomic update: the winner has committed (we waited on its
 * row lock), so its replay is there already. Never a reuse: nothing is revoked.
 */
async function answerConcurrentLoser(
  ctx: AuthContext,
  token: string,
  record: TokenRecord,
): Promise<TokenResponse> {
  const now = await ctx.repos.tokens.findByHash(record.tokenHash);
  if (!now || now.revokedAt || now.grantRevokedAt)
    throw new OAuthError('invalid_grant', 'refresh token revoked');
  const replay = await findReplay(ctx, token, record.tokenHash);
  ctx.audit('refresh_race_lost', {
    client_id: record.clientId,
    grant_id: record.grantId,
    replayed: replay !== undefined,
  });
  if (replay) return replay;
  throw new OAuthError('invalid_grant', 'refresh token already used');
}

/** The token was rotated before we read it: a retry within the window, else a reuse. */
async function replayOrRevoke(ctx: AuthContext, token: string, record: TokenRecord): Promise<TokenResponse> {
  const replay = await findReplay(ctx, token, record.tokenHash);
  if (replay) {
    ctx.audit('refresh_replayed', { client_id: record.clientId, grant_id: record.grantId });
    return replay;
  }
  const graceMs = ctx.config.REFRESH_REUSE_GRACE_SECONDS * 1000;
  const rotatedAt = record.rotatedAt ?? new Date(0);
  if (graceMs > 0 && Date.now() - rotatedAt.getTime() <= graceMs) {
    // Within the window by our clock but no replay (clocks of this instance and Postgres apart, or a
    // rotation from before replays existed): refuse without punishing what may be an honest retry.
    throw new OAuthError('invalid_grant', 'refresh token already used');
  }
  ctx.audit('refresh_reuse', { client_id: record.clientId, grant_id: record.grantId });
  if (record.familyId) await revokeFamily(ctx, record.familyId, 'refresh_reuse');
  throw new OAuthError('invalid_grant', 'refresh token already used');
}

async function findReplay(ctx: AuthContext, token: string, hash: Buffer): Promise<TokenResponse | undefined> {
  if (ctx.config.REFRESH_REUSE_GRACE_SECONDS === 0) return undefined;
  const sealed = await ctx.repos.refreshReplays.find(hash);
  const opened = sealed && sealerFor(ctx).open(token, hash, sealed);
  return opened ? (JSON.parse(opened) as TokenResponse) : undefined;
}

const sealers = new WeakMap<object, ReplaySealer>();
function sealerFor(ctx: AuthContext): ReplaySealer {
  let sealer = sealers.get(ctx.config);
  if (!sealer) sealers.set(ctx.config, (sealer = createReplaySealer(ctx.config.TOKEN_SIGNING_SECRET)));
  return sealer;
}
