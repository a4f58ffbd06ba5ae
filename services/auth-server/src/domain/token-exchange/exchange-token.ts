import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import { issueTokens, type TokenResponse } from '../tokens/issue-tokens';
import { actorClaim } from './actor-claim';
import { checkExchangeScope } from './check-exchange-scope';
import { checkTokenExchangeAllowed } from './check-token-exchange-allowed';
import { checkTokenTypes } from './check-token-types';
import { findPresentedToken } from './find-presented-token';
import { resolveExchangeAudience } from './resolve-exchange-audience';
import { ACCESS_TOKEN_TYPE, type TokenExchangeRequest } from './token-exchange';
import type { DpopBinding } from '../dpop/token-dpop';

/** RFC 8693 §2.2.1: the response names the type of the token it issued. */
export interface TokenExchangeResponse extends TokenResponse {
  issued_token_type: typeof ACCESS_TOKEN_TYPE;
}

/**
 * RFC 8693 token exchange at /token, for a service acting for the user of the token it received:
 * the client is allowed (checkTokenExchangeAllowed), the request well formed (checkTokenTypes), the
 * subject and actor tokens active access tokens of ours (findPresentedToken), the scope a subset
 * (checkExchangeScope), the audience one the client may target (resolveExchangeAudience), `act` the
 * delegation chain (actorClaim). The new access token lives under a grant of its own (this client,
 * the subject's user), so it is revoked with the client, the user or by /revoke like any other, and
 * in the subject's refresh family, so a detected refresh reuse takes it too (RFC 9700 §4.14.2). It
 * lives no longer than the subject or actor token (§2.2.1 expires_in); no refresh token (§2.2.1: the
 * client exchanges again).
 */
export async function exchangeToken(
  ctx: AuthContext,
  client: Client,
  request: TokenExchangeRequest,
  dpop?: DpopBinding,
): Promise<TokenExchangeResponse> {
  checkTokenExchangeAllowed(client);
  const { subjectToken, actorToken } = checkTokenTypes(request);
  const now = new Date();
  const subject = await findPresentedToken(ctx, subjectToken, 'subject_token', now);
  const actor = actorToken ? await findPresentedToken(ctx, actorToken, 'actor_token', now) : undefined;
  const scopes = checkExchangeScope(request.scope, subject.record, client);
  const audience = resolveExchangeAudience(
    request.targets,
    subject.record,
    client,
    await ctx.repos.resourceServers.list(),
  );
  const act = actorClaim(subject.record, actor?.record, client.clientId);
  const lifetimes = [subject.remainingSeconds, actor?.remainingSeconds].filter(
    (seconds): seconds is number => seconds !== undefined,
  );
  const grant = await ctx.repos.grants.save({
    clientId: client.clientId,
    userId: subject.record.userId,
    scopes,
    resources: audience,
    authTime: subject.record.grantAuthTime,
  });
  const response = await issueTokens(ctx, {
    client,
    grantId: grant.grantId,
    userId: subject.record.userId,
    scopes,
    audience,
    familyId: subject.record.familyId ?? undefined,
    withRefresh: false,
    ...(lifetimes.length > 0 ? { maxLifetimeSeconds: Math.min(...lifetimes) } : {}),
    ...(act ? { act } : {}),
    ...(dpop ? { dpop } : {}),
  });
  return { ...response, issued_token_type: ACCESS_TOKEN_TYPE };
}
