import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import { generateSecret } from '../crypto/secret-hasher';
import { issueTokens } from '../tokens/issue-tokens';
import { resolveAudience } from '../tokens/resolve-audience';
import {
  AuthorizeError,
  type AuthenticatedUser,
  type AuthorizationFlow,
  type AuthorizationRequest,
} from './authorization-flow';
import { loadPushedRequest } from './load-pushed-request';
import { parseAuthorizationRequest } from './parse-authorization-request';
import type { ClientAssertionDeps } from '../clients/verify-client-assertion';
import { claimRequestObjectJti, resolveRequestObject } from './resolve-request-object';
import { grantClaimsFor } from './grant-claims';

type Back = Pick<AuthorizationRequest, 'redirectUri' | 'responseMode' | 'state'>;

/**
 * The protocol half of /authorize. approve() records the grant and returns the redirect carrying the code
 * (RFC 6749 §4.1.2) or the implicit tokens (§4.2.2, fragment only), always with `iss` (RFC 9207).
 */
export function createAuthorizationFlow(ctx: AuthContext, keys: ClientAssertionDeps): AuthorizationFlow {
  const redirect = (back: Back, params: Record<string, string | undefined>): string => {
    const url = new URL(back.redirectUri);
    const values = new URLSearchParams();
    for (const [name, value] of Object.entries({ ...params, state: back.state, iss: ctx.config.ISSUER }))
      if (value !== undefined) values.set(name, value);
    if (back.responseMode === 'fragment') url.hash = values.toString();
    else for (const [name, value] of values) url.searchParams.append(name, value);
    return url.toString();
  };

  return {
    async parse(params) {
      if (params.request_uri === undefined) {
        const object = await resolveRequestObject(ctx, keys, params);
        const request = await parseAuthorizationRequest(ctx, object.params, { signed: object.signed });
        return object.jti ? { ...request, requestObjectJti: object.jti } : request;
      }
      const pushed = await loadPushedRequest(ctx, params);
      // A pushed request object is stored as pushed and verified again here (RFC 9126 §3, RFC 9101 §6.3);
      // its jti was used up by the push, and the request_uri is single use itself.
      const object = await resolveRequestObject(ctx, keys, pushed.params, { pushed: true });
      const request = await parseAuthorizationRequest(ctx, object.params, {
        pushed: true,
        signed: object.signed,
      });
      return { ...request, pushedRequestHash: pushed.requestHash };
    },

    async approve(request: AuthorizationRequest, user: AuthenticatedUser, approvedScopes: string[]) {
      const client = await ctx.repos.clients.findById(request.clientId);
      if (!client) throw new OAuthError('invalid_request', 'client no longer exists');
      // RFC 9126 §4: a pushed request is used once; a reload before this point loads it again.
      if (request.pushedRequestHash && !(await ctx.repos.pushedRequests.consume(request.pushedRequestHash)))
        throw new AuthorizeError(
          new OAuthError('invalid_request_uri', 'request_uri is expired or already used'),
          false,
        );
      // RFC 9101 §10.10: a request object with a jti is used once; a replay or a second tab loses here.
      if (request.requestObjectJti) await claimRequestObjectJti(keys, request.requestObjectJti);
      const scopes = request.scopes.filter((s) => approvedScopes.includes(s));
      const audience = resolveAudience(request.resources, scopes, await ctx.repos.resourceServers.list());
      const grant = await ctx.repos.grants.save({
        clientId: client.clientId,
        userId: user.userId,
        scopes,
        resources: audience,
        authTime: user.authTime,
        sid: user.sid ?? null,
        authentication: user.authentication ?? null,
        claims: grantClaimsFor(request.claims, user.authentication),
      });
      if (request.responseType === 'code') {
        const code = generateSecret();
        await ctx.repos.codes.save({
          codeHash: ctx.hasher.hash(code),
          grantId: grant.grantId,
          clientId: client.clientId,
          userId: user.userId,
          redirectUri: request.redirectUri,
          scopes,
          resources: audience,
          codeChallenge: request.codeChallenge ?? null,
          nonce: request.nonce ?? null,
          dpopJkt: request.dpopJkt ?? null,
          authTime: user.authTime,
          expiresAt: new Date(Date.now() + ctx.config.AUTH_CODE_TTL_SECONDS * 1000),
        });
        return redirect(request, { code });
      }
      // Implicit (RFC 6749 §4.2.2): no refresh token; an ID token for "id_token token" (OIDC Core §3.2.2.5).
      const tokens = await issueTokens(ctx, {
        client,
        grantId: grant.grantId,
        userId: user.userId,
        scopes,
        audience,
        withRefresh: false,
        ...(request.responseType === 'id_token token'
          ? { idToken: { nonce: request.nonce ?? null, authTime: user.authTime } }
          : {}),
      });
      return redirect(
        { ...request, responseMode: 'fragment' },
        {
          access_token: tokens.access_token,
          token_type: tokens.token_type,
          expires_in: tokens.expires_in?.toString(),
          scope: tokens.scope,
          id_token: tokens.id_token,
        },
      );
    },

    errorRedirect(request: Back, error: OAuthError) {
      return redirect(request, { error: error.code, error_description: error.description });
    },
  };
}
