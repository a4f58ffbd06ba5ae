import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from './client';
import { createClientSecretEncryption } from '../crypto/key-encryption';
import { generateSecret } from '../crypto/secret-hasher';
import { checkRedirectUriForRegistration } from './check-redirect-uri';
import { checkBackchannelLogoutUri } from './check-backchannel-logout-uri';
import { SUPPORTED_GRANT_TYPES } from './grant-types';
import { checkClientJwks, clientJwksSchema } from './client-jwks';
import { TOKEN_EXCHANGE_GRANT_TYPE } from '../token-exchange/token-exchange';

const ttl = z
  .number()
  .int()
  .positive()
  .max(10 * 365 * 86_400);

export const clientRegistrationSchema = z
  .object({
    name: z.string().min(1).max(200),
    client_type: z.enum(['confidential', 'public']),
    application_type: z.enum(['web', 'native']).default('web'),
    redirect_uris: z.array(z.string()).default([]),
    grant_types: z.array(z.enum(SUPPORTED_GRANT_TYPES)).default(['authorization_code']),
    response_types: z.array(z.enum(['code', 'token', 'id_token token'])).default(['code']),
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/)).default([]),
    token_format: z.enum(['opaque', 'jwt']).default('opaque'),
    jwt_alg: z.enum(['HS256', 'RS256', 'ES256']).default('HS256'),
    /** null: a non-expiring access token (opaque only, where revocation works). */
    access_token_ttl_seconds: ttl.nullable().default(7200),
    refresh_token_ttl_seconds: ttl.nullable().default(30 * 86_400),
    refresh_idle_ttl_seconds: ttl.nullable().default(null),
    post_logout_redirect_uris: z.array(z.string()).max(20).default([]),
    backchannel_logout_uri: z.string().max(2000).nullable().default(null),
    backchannel_logout_session_required: z.boolean().default(false),
    require_pushed_authorization_requests: z.boolean().default(false),
    dpop_bound_access_tokens: z.boolean().default(false),
    require_signed_request_object: z.boolean().default(false),
    /** RFC 7591 §2; default: client_secret_basic (confidential), none (public). */
    token_endpoint_auth_method: z
      .enum(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'])
      .optional(),
    jwks: clientJwksSchema.optional(),
    jwks_uri: z.string().max(2000).optional(),
  })
  .strict();
export type ClientRegistration = z.input<typeof clientRegistrationSchema>;

/**
 * Registers a client; the client_id is ours, never the caller's (RFC 9700 §4.15). The secret (256 bits,
 * base64url, no ':') is returned here once and stored only as a keyed hash.
 */
export async function registerClient(
  ctx: AuthContext,
  input: unknown,
  options: {
    clientId?: string;
    secret?: string;
    skipRedirectChecks?: boolean;
    /** Stores the validated client; default: insert (RFC 7592 §2.2's replace passes its update). */
    persist?: (client: Omit<Client, 'createdAt'>) => Promise<Client>;
  } = {},
): Promise<{ client: Client; clientSecret?: string }> {
  const parsed = clientRegistrationSchema.safeParse(input);
  if (!parsed.success)
    throw new OAuthError(
      'invalid_client_metadata',
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  const body = parsed.data;
  if (!options.skipRedirectChecks)
    for (const uri of body.redirect_uris) checkRedirectUriForRegistration(uri, body.application_type);
  if (!options.skipRedirectChecks)
    for (const uri of body.post_logout_redirect_uris)
      checkRedirectUriForRegistration(uri, body.application_type);
  if (body.backchannel_logout_uri !== null) checkBackchannelLogoutUri(body.backchannel_logout_uri);
  if (body.token_format === 'jwt' && body.access_token_ttl_seconds === null)
    throw new OAuthError(
      'invalid_client_metadata',
      'JWT access tokens must expire (they cannot be recalled by a resource server that verifies them locally)',
    );
  if (body.client_type === 'public' && body.grant_types.includes('client_credentials'))
    throw new OAuthError('invalid_client_metadata', 'public clients cannot use client_credentials');
  if (body.client_type === 'public' && body.grant_types.includes(TOKEN_EXCHANGE_GRANT_TYPE))
    throw new OAuthError('invalid_client_metadata', 'public clients cannot use token exchange');
  const implicit = body.response_types.some((t) => t !== 'code');
  if (implicit && !body.grant_types.includes('implicit'))
    throw new OAuthError('invalid_client_metadata', 'token response types need the implicit grant type');
  const authMethod = tokenEndpointAuthMethod(body);
  if (body.jwks) checkClientJwks(body.jwks);
  if (body.jwks_uri !== undefined) checkJwksUri(body.jwks_uri);
  const secretMethod = authMethod === 'client_secret_basic' || authMethod === 'client_secret_jwt';
  const clientSecret = secretMethod ? (options.secret ?? generateSecret()) : undefined;
  const client = await (options.persist ?? ctx.repos.clients.save)({
    clientId: options.clientId ?? `c_${randomBytes(12).toString('base64url')}`,
    secretHash: clientSecret ? ctx.hasher.hash(clientSecret) : null,
    // Only client_secret_jwt needs the secret back (to check its HMAC); others keep the hash alone.
    secretCiphertext:
      clientSecret && authMethod === 'client_secret_jwt'
        ? createClientSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).encrypt(clientSecret)
        : null,
    name: body.name,
    clientType: body.client_type,
    applicationType: body.application_type,
    redirectUris: body.redirect_uris,
    grantTypes: body.grant_types,
    responseTypes: body.response_types,
    scopes: body.scopes,
    tokenFormat: body.token_format,
    jwtAlg: body.jwt_alg,
    accessTokenTtlSeconds: body.access_token_ttl_seconds,
    refreshTokenTtlSeconds: body.grant_types.includes('refresh_token')
      ? body.refresh_token_ttl_seconds
      : null,
    refreshIdleTtlSeconds: body.refresh_idle_ttl_seconds,
    postLogoutRedirectUris: body.post_logout_redirect_uris,
    backchannelLogoutUri: body.backchannel_logout_uri,
    backchannelLogoutSessionRequired: body.backchannel_logout_session_required,
    requirePushedAuthorizationRequests: body.require_pushed_authorization_requests,
    dpopBoundAccessTokens: body.dpop_bound_access_tokens,
    requireSignedRequestObject: body.require_signed_request_object,
    tokenEndpointAuthMethod: authMethod,
    jwks: body.jwks ?? null,
    jwksUri: body.jwks_uri ?? null,
  });
  return { client, clientSecret };
}

/** The wire form of a client (never its secret hash). */
export function presentClient(client: Client) {
  return {
    client_id: client.clientId,
    name: client.name,
    client_type: client.clientType,
    application_type: client.applicationType,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: client.responseTypes,
    scopes: client.scopes,
    token_format: client.tokenFormat,
    jwt_alg: client.jwtAlg,
    access_token_ttl_seconds: client.accessTokenTtlSeconds,
    refresh_token_ttl_seconds: client.refreshTokenTtlSeconds,
    refresh_idle_ttl_seconds: client.refreshIdleTtlSeconds,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    backchannel_logout_uri: client.backchannelLogoutUri,
    backchannel_logout_session_required: client.backchannelLogoutSessionRequired,
    require_pushed_authorization_requests: client.requirePushedAuthorizationRequests,
    dpop_bound_access_tokens: client.dpopBoundAccessTokens,
    require_signed_request_object: client.requireSignedRequestObject,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    ...(client.jwks ? { jwks: client.jwks } : {}),
    ...(client.jwksUri ? { jwks_uri: client.jwksUri } : {}),
    created_at: client.createdAt.toISOString(),
  };
}

/**
 * The stored method: both secret methods are one (a secret client may use either, RFC 6749 §2.3.1);
 * private_key_jwt (RFC 7523) is for confidential clients with `jwks` and gets no secret.
 */
function tokenEndpointAuthMethod(
  body: z.output<typeof clientRegistrationSchema>,
): Client['tokenEndpointAuthMethod'] {
  const method =
    body.token_endpoint_auth_method ?? (body.client_type === 'public' ? 'none' : 'client_secret_basic');
  if ((method === 'none') !== (body.client_type === 'public'))
    throw new OAuthError(
      'invalid_client_metadata',
      'token_endpoint_auth_method none is for public clients only',
    );
  const keys = (body.jwks !== undefined ? 1 : 0) + (body.jwks_uri !== undefined ? 1 : 0);
  if ((method === 'private_key_jwt') !== (keys === 1) || keys > 1)
    throw new OAuthError(
      'invalid_client_metadata',
      'token_endpoint_auth_method private_key_jwt takes exactly one of jwks and jwks_uri (RFC 7591 §2)',
    );
  return method === 'client_secret_post' ? 'client_secret_basic' : method;
}

/** jwks_uri: https, or http on a loopback address (a service on the same machine, development, tests). */
export function checkJwksUri(uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new OAuthError('invalid_client_metadata', `jwks_uri is not an absolute URL: ${uri}`);
  }
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (
    url.hash ||
    url.username ||
    url.password ||
    !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))
  )
    throw new OAuthError(
      'invalid_client_metadata',
      `jwks_uri must use https (or http on a loopback address), without credentials or fragment: ${uri}`,
    );
}
