import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import { revokeGrants } from '../revocation/revoke';
import { allowsRefresh, issueTokens, type TokenResponse } from '../tokens/issue-tokens';
import { checkDeviceGrantAllowed } from './check-device-grant-allowed';
import type { PolledDeviceAuthorization } from './device-authorization';
import { deriveUserCode, hashUserCode } from './user-code';
import type { DpopBinding } from '../dpop/token-dpop';

/** RFC 8628 §3.5: a client polling faster than its interval gets slow_down and 5 s more. */
const SLOW_DOWN_SECONDS = 5;

/** What a poll decided: its state change commits before the error is answered. */
type PollOutcome = { tokens: TokenResponse } | { error: OAuthError } | { replayOf: string };

/**
 * RFC 8628 §3.4–3.5, the device polling /token. One transaction holds the row, so polls of one device
 * run one at a time and exactly one of them turns an approval into tokens:
 * - a device code of another client: invalid_grant, and the row is left as it was (§3.5 via RFC 6749
 *   §5.2; a thief cannot burn it);
 * - expired: expired_token; denied: access_denied (400 here, RFC 6749 §5.2);
 * - pending: slow_down with the interval raised by 5 s when this poll came sooner than the interval after
 *   the last one, else authorization_pending; either way the poll's time is recorded;
 * - approved: the same token service as the code flow (access, refresh when allowed, ID token with the
 *   approver's auth_time), unless the grant was revoked meanwhile; then consumed;
 * - consumed: invalid_grant, and the grant's tokens are revoked (a second redemption means the device
 *   code leaked, as for a replayed code, RFC 9700 §4.2.4).
 * Times are the database's, so instances with skewed clocks agree on the interval and the expiry.
 */
export async function exchangeDeviceCode(
  ctx: AuthContext,
  client: Client,
  params: { device_code?: string },
  dpop?: DpopBinding,
): Promise<TokenResponse> {
  checkDeviceGrantAllowed(client);
  const deviceCode = params.device_code;
  if (!deviceCode) throw new OAuthError('invalid_request', 'device_code is required');
  const userCodeHash = hashUserCode(ctx.hasher, deriveUserCode(ctx.hasher, deviceCode));
  const outcome = await ctx.transaction(async (repos): Promise<PollOutcome> => {
    const row = await repos.deviceAuthorizations.lockForPoll(userCodeHash, ctx.hasher.hash(deviceCode));
    if (!row || row.clientId !== client.clientId)
      return { error: new OAuthError('invalid_grant', 'unknown device code') };
    if (row.status === 'consumed' && row.grantId) return { replayOf: row.grantId };
    if (row.expiresAt <= row.now)
      return { error: new OAuthError('expired_token', 'the device code has expired') };
    if (row.status === 'denied')
      return {
        error: new OAuthError('access_denied', 'the user denied the authorization').with({ status: 400 }),
      };
    if (row.status === 'pending') {
      const tooSoon = isTooSoon(row);
      await repos.deviceAuthorizations.recordPoll(
        userCodeHash,
        row.intervalSeconds + (tooSoon ? SLOW_DOWN_SECONDS : 0),
      );
      return {
        error: tooSoon
          ? new OAuthError(
              'slow_down',
              `poll at most every ${row.intervalSeconds + SLOW_DOWN_SECONDS} seconds`,
            )
          : new OAuthError('authorization_pending', 'the user has not yet approved the authorization'),
      };
    }
    if (row.grantRevokedAt || !row.grantId || !row.userId || !row.authTime)
      return { error: new OAuthError('invalid_grant', 'authorization grant revoked') };
    await repos.deviceAuthorizations.markConsumed(userCodeHash);
    const tokens = await issueTokens(
      { ...ctx, repos },
      {
        client,
        grantId: row.grantId,
        userId: row.userId,
        scopes: row.scopes,
        audience: row.resources,
        withRefresh: allowsRefresh(client, row.scopes),
        idToken: { nonce: null, authTime: row.authTime },
        ...(dpop ? { dpop } : {}),
      },
    );
    return { tokens };
  });
  if ('tokens' in outcome) return outcome.tokens;
  if ('error' in outcome) throw outcome.error;
  ctx.audit('device_code_replay', { client_id: client.clientId, grant_id: outcome.replayOf });
  await revokeGrants(ctx, { grant_id: outcome.replayOf }, 'device_code_replay');
  throw new OAuthError('invalid_grant', 'device code already used');
}

/** Sooner than `interval` after the previous poll (the first poll may come at once, §3.4). */
function isTooSoon(row: PolledDeviceAuthorization): boolean {
  if (!row.lastPolledAt) return false;
  return row.now.getTime() - row.lastPolledAt.getTime() < row.intervalSeconds * 1000;
}
