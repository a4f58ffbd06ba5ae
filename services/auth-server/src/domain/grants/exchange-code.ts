import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import { issueTokens, allowsRefresh, type TokenResponse } from '../tokens/issue-tokens';
import { revokeGrants } from '../revocation/revoke';
import { checkPkce } from './check-pkce';
import type { DpopBinding } from '../dpop/token-dpop';

/**
 * RFC 6749 §4.1.3: the code is single use and bound to client, redirect_uri and the PKCE challenge.
 * A second redemption fails and revokes every token issued from the code's grant (RFC 9700 §4.2.4).
 */
export async function exchangeCode(
  ctx: AuthContext,
  client: Client,
  params: { code?: string; redirect_uri?: string; code_verifier?: string },
  dpop?: DpopBinding,
): Promise<TokenResponse> {
  if (!client.grantTypes.includes('authorization_code'))
    throw new OAuthError('unauthorized_client', 'authorization_code is not allowed for this client');
  if (!params.code) throw new OAuthError('invalid_request', 'code is required');
  const consumed = await ctx.repos.codes.consume(ctx.hasher.hash(params.code), client.clientId);
  if (!consumed) throw new OAuthError('invalid_grant', 'unknown authorization code');
  const { code, replayed } = consumed;
  if (replayed) {
    ctx.audit('code_replay', { client_id: client.clientId, grant_id: code.grantId });
    await revokeGrants(ctx, { grant_id: code.grantId }, 'code_replay');
    throw new OAuthError('invalid_grant', 'authorization code already used');
  }
  if (code.clientId !== client.clientId)
    throw new OAuthError('invalid_grant', 'code was issued to another client');
  // A grant revoked after the code was issued (admin, account page, client deletion, a replay of a
  // sibling code) takes its unredeemed codes with it (RFC 6749 §10.5, RFC 7009 §2.1).
  if (code.grantRevokedAt) throw new OAuthError('invalid_grant', 'authorization grant revoked');
  if (code.expiresAt <= new Date()) throw new OAuthError('invalid_grant', 'authorization code expired');
  // §4.1.3: redirect_uri must repeat the authorization request's; it may be left out only when the
  // client has that one URI registered (the authorization request could then omit it too).
  const redirectUri =
    params.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (redirectUri !== code.redirectUri)
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  checkPkce(code.codeChallenge, params.code_verifier);
  // RFC 9449 §10: a code bound by dpop_jkt is redeemed only with a proof of that key.
  if (code.dpopJkt !== null && code.dpopJkt !== dpop?.jkt)
    throw new OAuthError('invalid_dpop_proof', 'the DPoP proof key does not match dpop_jkt');
  return issueTokens(ctx, {
    client,
    grantId: code.grantId,
    userId: code.userId,
    scopes: code.scopes,
    audience: code.resources,
    codeHash: code.codeHash,
    withRefresh: allowsRefresh(client, code.scopes),
    idToken: { nonce: code.nonce, authTime: code.authTime },
    ...(dpop ? { dpop } : {}),
  });
}
