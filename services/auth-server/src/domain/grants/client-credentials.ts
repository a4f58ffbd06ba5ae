import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import { issueTokens, type TokenResponse } from '../tokens/issue-tokens';
import { resolveAudience } from '../tokens/resolve-audience';
import { parseScope } from './parse-scope';
import type { DpopBinding } from '../dpop/token-dpop';

/**
 * RFC 6749 §4.4: confidential clients only; no user, so no `sub` (RFC 9700 §4.15 lets the resource server
 * tell a client from a user) and no refresh token (§4.4.3).
 */
export async function clientCredentials(
  ctx: AuthContext,
  client: Client,
  params: { scope?: string; resource: string[] },
  dpop?: DpopBinding,
): Promise<TokenResponse> {
  if (client.clientType !== 'confidential' || !client.grantTypes.includes('client_credentials'))
    throw new OAuthError('unauthorized_client', 'client_credentials is not allowed for this client');
  const requested = parseScope(params.scope);
  const scopes = requested.length
    ? requested
    : client.scopes.filter((s) => s !== 'openid' && s !== 'offline_access');
  if (scopes.some((s) => !client.scopes.includes(s)))
    throw new OAuthError('invalid_scope', 'scope not allowed');
  const audience = resolveAudience(params.resource, scopes, await ctx.repos.resourceServers.list());
  const grant = await ctx.repos.grants.save({
    clientId: client.clientId,
    userId: null,
    scopes,
    resources: audience,
    authTime: null,
  });
  return issueTokens(ctx, {
    client,
    grantId: grant.grantId,
    userId: null,
    scopes,
    audience,
    withRefresh: false,
    ...(dpop ? { dpop } : {}),
  });
}
