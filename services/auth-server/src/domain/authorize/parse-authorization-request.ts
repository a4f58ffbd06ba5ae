import { newDictionary, OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import { matchRedirectUri } from '../clients/check-redirect-uri';
import { parseScope } from '../grants/parse-scope';
import { resolveAudience } from '../tokens/resolve-audience';
import { AuthorizeError, type AuthorizationRequest } from './authorization-flow';
import { essentialAcr, parseClaimsParameter, type ClaimsRequest } from './claims-request';

const IMPLICIT = ['token', 'id_token token'];
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * RFC 6749 §4.1.1/§4.1.2.1, RFC 7636, RFC 9700 §2.1, OIDC Core §3.1.2. Until client and redirect_uri are
 * trusted, errors are not redirectable (an error page, never an open redirect); after that they go back
 * to the client with RFC 6749 error codes.
 */
export async function parseAuthorizationRequest(
  ctx: AuthContext,
  raw: Record<string, unknown>,
  /** The parameters were (or are being) pushed to POST /par (RFC 9126). */
  options: { pushed?: boolean; signed?: boolean } = {},
): Promise<AuthorizationRequest> {
  // Keyed by the request's parameter names: no prototype, so `p.client_id` and the like are own reads
  // and `__proto__=x` is a parameter (ignored as unknown), not a prototype.
  const p = newDictionary<string>();
  for (const [name, value] of Object.entries(raw)) {
    if (name === 'resource' && Array.isArray(value) && value.every((v) => typeof v === 'string')) continue;
    if (typeof value !== 'string')
      throw new AuthorizeError(
        new OAuthError('invalid_request', `parameter ${name} must appear once`),
        false,
      );
    p[name] = value;
  }
  const client = p.client_id ? await ctx.repos.clients.findById(p.client_id) : undefined;
  if (!client) throw new AuthorizeError(new OAuthError('invalid_request', 'unknown client_id'), false);
  const redirectUri =
    p.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !matchRedirectUri(redirectUri, client.redirectUris, client.applicationType))
    throw new AuthorizeError(
      new OAuthError('invalid_request', 'redirect_uri is not registered for this client'),
      false,
    );

  const responseType = (p.response_type ?? '').split(' ').filter(Boolean).sort().join(' ');
  const normalized =
    responseType === 'id_token token' || responseType === 'token id_token' ? 'id_token token' : responseType;
  const implicit = IMPLICIT.includes(normalized);
  const responseMode = (p.response_mode ??
    (implicit ? 'fragment' : 'query')) as AuthorizationRequest['responseMode'];
  const back = {
    redirectUri,
    responseMode: responseMode === 'fragment' ? 'fragment' : 'query',
    state: p.state,
  } as const;
  const fail = (code: ConstructorParameters<typeof OAuthError>[0], description: string) =>
    new AuthorizeError(new OAuthError(code, description), true, back);

  // RFC 9126 §6: such a client's requests come only through POST /par (request_uri is loaded before this).
  if (client.requirePushedAuthorizationRequests && !options.pushed)
    throw fail('invalid_request', 'this client must push its authorization requests (RFC 9126)');
  // RFC 9101 §10.5: such a client's parameters come only in a signed request object (resolve-request-object.ts).
  if (client.requireSignedRequestObject && !options.signed)
    throw fail('invalid_request', 'this client must send a signed request object (RFC 9101)');
  // Resolved before this (the object, the pushed request): one left here is nested or repeated.
  if (p.request !== undefined || p.request_uri !== undefined)
    throw fail('invalid_request', 'request and request_uri cannot be used here');
  if (!normalized) throw fail('invalid_request', 'response_type is required');
  if (normalized !== 'code' && !implicit)
    throw fail('unsupported_response_type', `response_type ${normalized} is not supported`);
  if (!client.responseTypes.includes(normalized) || (implicit && !client.grantTypes.includes('implicit')))
    throw fail('unsupported_response_type', `response_type ${normalized} is not allowed for this client`);
  if (responseMode !== 'query' && responseMode !== 'fragment')
    throw fail('invalid_request', 'unsupported response_mode');
  if (implicit && responseMode === 'query')
    throw fail('invalid_request', 'tokens are never sent in the query');

  let scopes: string[];
  try {
    scopes = parseScope(p.scope);
  } catch {
    throw fail('invalid_scope', 'malformed scope');
  }
  if (scopes.length === 0) throw fail('invalid_scope', 'scope is required');
  const unknown = scopes.filter((s) => !client.scopes.includes(s));
  if (unknown.length) throw fail('invalid_scope', `scope not allowed for this client: ${unknown.join(' ')}`);

  if (p.code_challenge_method !== undefined && p.code_challenge_method !== 'S256')
    throw fail('invalid_request', 'code_challenge_method must be S256');
  if (p.code_challenge !== undefined && p.code_challenge_method === undefined)
    throw fail('invalid_request', 'code_challenge_method is required (S256)');
  if (p.code_challenge !== undefined && !CHALLENGE.test(p.code_challenge))
    throw fail('invalid_request', 'malformed code_challenge');
  if (normalized === 'code' && client.clientType === 'public' && !p.code_challenge)
    throw fail('invalid_request', 'PKCE (code_challenge with S256) is required for public clients');
  if (normalized === 'id_token token' && !p.nonce) throw fail('invalid_request', 'nonce is required');
  if (normalized === 'id_token token' && !scopes.includes('openid'))
    throw fail('invalid_scope', 'openid scope is required');

  // RFC 8707 §2: several `resource` parameters; the token's audience is all of them.
  const resources =
    raw.resource === undefined ? [] : ([] as string[]).concat(raw.resource as string | string[]);
  try {
    resolveAudience(resources, scopes, await ctx.repos.resourceServers.list());
  } catch (error) {
    if (error instanceof OAuthError) throw new AuthorizeError(error, true, back);
    throw error;
  }
  const maxAge = p.max_age === undefined ? undefined : Number(p.max_age);
  if (maxAge !== undefined && (!Number.isInteger(maxAge) || maxAge < 0))
    throw fail('invalid_request', 'max_age must be a non-negative integer');
  // OIDC Core §3.1.2.1: space-separated; a bounded list (each value is compared against four of ours).
  const acrValues = (p.acr_values ?? '').split(' ').filter(Boolean);
  if ((p.acr_values?.length ?? 0) > 1024 || acrValues.length > 16)
    throw fail('invalid_request', 'acr_values is too long');
  // RFC 9449 §10: a SHA-256 JWK thumbprint, base64url (43 characters).
  if (p.dpop_jkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(p.dpop_jkt))
    throw fail('invalid_request', 'malformed dpop_jkt');
  // OIDC Core §5.5: JSON, bounded, parsed into Maps (claims-request.ts); malformed is invalid_request.
  let claims: ClaimsRequest | undefined;
  if (p.claims !== undefined) {
    try {
      claims = parseClaimsParameter(p.claims);
    } catch (error) {
      if (error instanceof OAuthError) throw new AuthorizeError(error, true, back);
      throw error;
    }
    // §5.5.1.1: an essential acr whose values are none of ours can never be met: a failed authentication.
    if (essentialAcr(claims) === 'unmeetable')
      throw fail('unmet_authentication_requirements', 'none of the essential acr values is supported');
  }
  const prompt = (p.prompt ?? '').split(' ').filter(Boolean);
  if (prompt.includes('none') && prompt.length > 1)
    throw fail('invalid_request', 'prompt=none cannot be combined');

  return {
    clientId: client.clientId,
    clientName: client.name,
    redirectUri,
    responseType: normalized,
    responseMode: back.responseMode,
    scopes,
    ...(p.state !== undefined ? { state: p.state } : {}),
    ...(p.nonce !== undefined ? { nonce: p.nonce } : {}),
    ...(p.code_challenge !== undefined
      ? { codeChallenge: p.code_challenge, codeChallengeMethod: 'S256' as const }
      : {}),
    resources,
    prompt,
    ...(maxAge !== undefined ? { maxAge } : {}),
    ...(acrValues.length > 0 ? { acrValues } : {}),
    ...(p.login_hint !== undefined ? { loginHint: p.login_hint } : {}),
    ...(claims ? { claims } : {}),
    ...(p.dpop_jkt !== undefined ? { dpopJkt: p.dpop_jkt } : {}),
    // OIDC Core §3.1.2.1: the page language, from wherever the parameters came (query, PAR, request object).
    ...(p.ui_locales !== undefined ? { uiLocales: p.ui_locales } : {}),
  };
}
