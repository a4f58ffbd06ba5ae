import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import type { IssueRequest, TokenBase } from './issue-request';
import { accessTokenTtl, mintAccessToken } from './mint-access-token';
import { generateSecret } from '../crypto/secret-hasher';
import { atHash } from './jwt-codec';
import { claimsForScopes } from '../users/claims-for-scopes';
import { DPOP_TOKEN_TYPE } from '../dpop/token-dpop';

export interface TokenResponse {
  access_token: string;
  /** RFC 9449 §5.1: DPoP when the access token is bound to the request's proof key. */
  token_type: 'Bearer' | 'DPoP';
  expires_in?: number;
  refresh_token?: string;
  id_token?: string;
  scope: string;
}

/** Whether this client gets a refresh token for these scopes (OIDC Core §11: offline_access for OIDC). */
export function allowsRefresh(client: Client, scopes: string[]): boolean {
  if (!client.grantTypes.includes('refresh_token') || client.refreshTokenTtlSeconds === null) return false;
  return !scopes.includes('openid') || scopes.includes('offline_access');
}

/**
 * Mints the access token (opaque: 256 random bits; JWT: RFC 9068 claims with typ at+jwt), the refresh
 * token and the ID token, and stores their keyed hashes in one round trip.
 */
export async function issueTokens(ctx: AuthContext, req: IssueRequest): Promise<TokenResponse> {
  const { client } = req;
  const now = new Date();
  const iat = Math.floor(now.getTime() / 1000);
  const ttl = accessTokenTtl(client, req);
  const familyId = req.withRefresh ? (req.familyId ?? randomUUID()) : (req.familyId ?? null);
  const base: TokenBase = {
    grantId: req.grantId,
    clientId: client.clientId,
    userId: req.userId,
    scopes: req.scopes,
    audience: req.audience,
    familyId,
    codeHash: req.codeHash ?? null,
    issuedAt: now,
  };
  const access = req.act ? { ...base, act: req.act } : base;
  const { accessToken, stored } = mintAccessToken(ctx, client, req, access, now);
  const rows = [stored];
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: req.dpop ? DPOP_TOKEN_TYPE : 'Bearer',
    scope: req.scopes.join(' '),
  };
  if (ttl !== null) response.expires_in = ttl;
  if (req.withRefresh && client.refreshTokenTtlSeconds !== null) {
    const refreshToken = generateSecret();
    rows.push({
      ...base,
      tokenHash: ctx.hasher.hash(refreshToken),
      kind: 'refresh_token',
      format: 'opaque',
      jti: null,
      expiresAt: new Date(now.getTime() + client.refreshTokenTtlSeconds * 1000),
      // RFC 9449 §5.0: a public client's refresh token is bound to its DPoP key (it has no other
      // credential); a confidential client's is not, its authentication already binds it.
      dpopJkt: req.dpop && client.clientType === 'public' ? req.dpop.jkt : null,
    });
    response.refresh_token = refreshToken;
  }
  if (req.idToken && req.userId && req.scopes.includes('openid')) {
    response.id_token = await issueIdToken(
      ctx,
      client,
      req.grantId,
      req.userId,
      req.scopes,
      req.idToken,
      accessToken,
      iat,
    );
  }
  await ctx.repos.tokens.saveAll(rows);
  ctx.audit('token_issued', {
    client_id: client.clientId,
    grant_id: req.grantId,
    user_id: req.userId ?? undefined,
    format: stored.format,
    refresh: response.refresh_token !== undefined,
    id_token: response.id_token !== undefined,
  });
  return response;
}

/** OIDC Core §2 and §3.1.3.6 (at_hash); §5.4 claims per scope; `sid` of the grant's browser session
 *  (OIDC Back-Channel Logout §2.1), so a logout token can name it. RS256 from the JWKS. */
async function issueIdToken(
  ctx: AuthContext,
  client: Client,
  grantId: string,
  userId: string,
  scopes: string[],
  params: { nonce: string | null; authTime: Date },
  accessToken: string,
  iat: number,
): Promise<string> {
  const [user, grant] = await Promise.all([
    ctx.repos.users.findById(userId),
    ctx.repos.grants.findById(grantId),
  ]);
  return ctx.jwt.signIdToken({
    // OIDC Core §5.4 by scope, and §5.5 the claims the request asked for by name (kept on the grant).
    ...claimsForScopes(user?.claims ?? {}, scopes, grant?.claims?.idToken),
    iss: ctx.config.ISSUER,
    sub: userId,
    aud: client.clientId,
    azp: client.clientId,
    iat,
    exp: iat + ctx.config.ID_TOKEN_TTL_SECONDS,
    auth_time: Math.floor(params.authTime.getTime() / 1000),
    ...(params.nonce ? { nonce: params.nonce } : {}),
    at_hash: atHash(accessToken),
    ...(grant?.sid ? { sid: grant.sid } : {}),
    // OIDC Core §2: how the user signed in, as recorded on the grant (kept on refresh like auth_time).
    // §5.5.1.1: an acr asked for with values is one of them (the grant's claims.acr, grant-claims.ts).
    ...(grant?.authentication
      ? { amr: grant.authentication.amr, acr: grant.claims?.acr ?? grant.authentication.acr }
      : {}),
  });
}
