import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from './client';
import type { ExtraClientMetadata } from './client-registration';
import { createClientSecretEncryption } from '../crypto/key-encryption';
import { generateSecret } from '../crypto/secret-hasher';
import { registerClient } from './register-client';
import { revokeGrants } from '../revocation/revoke';

/** RFC 7592 §3 / RFC 6750 §3.1: a wrong or unknown token answers the same (no client enumeration). */
export function invalidToken(description: string): OAuthError {
  return new OAuthError('invalid_token', description, {
    'WWW-Authenticate': `Bearer error="invalid_token"`,
  });
}

const httpsUri = z
  .string()
  .max(2000)
  .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:', 'must be an https URL');

/**
 * RFC 7591 §2 client metadata (and OIDC Dynamic Client Registration's application_type and logout
 * URIs). Not strict: §2 says unknown metadata is ignored; a known field with a wrong type is refused.
 */
const metadataSchema = z.object({
  redirect_uris: z.array(z.string().max(2000)).max(20).default([]),
  client_name: z.string().min(1).max(200).optional(),
  token_endpoint_auth_method: z
    .enum(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'])
    .default('client_secret_basic'),
  grant_types: z.array(z.string().max(200)).max(10).default(['authorization_code']),
  response_types: z.array(z.string().max(200)).max(10).optional(),
  scope: z.string().max(2000).optional(),
  application_type: z.enum(['web', 'native']).default('web'),
  jwks: z.unknown().optional(),
  jwks_uri: z.string().max(2000).optional(),
  post_logout_redirect_uris: z.array(z.string().max(2000)).max(20).optional(),
  backchannel_logout_uri: z.string().max(2000).optional(),
  backchannel_logout_session_required: z.boolean().optional(),
  require_pushed_authorization_requests: z.boolean().optional(),
  dpop_bound_access_tokens: z.boolean().optional(),
  logo_uri: httpsUri.optional(),
  client_uri: httpsUri.optional(),
  policy_uri: httpsUri.optional(),
  tos_uri: httpsUri.optional(),
  contacts: z.array(z.string().min(1).max(320)).max(20).optional(),
});
type Metadata = z.output<typeof metadataSchema>;

function parseMetadata(body: unknown): Metadata {
  const parsed = metadataSchema.safeParse(body);
  if (!parsed.success)
    throw new OAuthError(
      'invalid_client_metadata',
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  const metadata = parsed.data;
  // RFC 7591 §2.1: authorization_code goes with the code response type (and implicit with token).
  const responseTypes =
    metadata.response_types ?? (metadata.grant_types.includes('authorization_code') ? ['code'] : []);
  if (responseTypes.includes('code') !== metadata.grant_types.includes('authorization_code'))
    throw new OAuthError(
      'invalid_client_metadata',
      'response type code and grant type authorization_code go together (RFC 7591 §2.1)',
    );
  return { ...metadata, response_types: responseTypes };
}

/** Our admin schema's input from RFC 7591 metadata, so both paths validate a client the same way. */
function toAdminInput(metadata: Metadata) {
  return {
    name: metadata.client_name ?? 'Dynamically registered client',
    client_type: metadata.token_endpoint_auth_method === 'none' ? 'public' : 'confidential',
    application_type: metadata.application_type,
    redirect_uris: metadata.redirect_uris,
    grant_types: metadata.grant_types,
    response_types: metadata.response_types,
    // RFC 7591 §2 scope: space-separated; these are the scopes the client may ask for.
    scopes: metadata.scope === undefined ? [] : metadata.scope.split(' ').filter((s) => s !== ''),
    post_logout_redirect_uris: metadata.post_logout_redirect_uris,
    backchannel_logout_uri: metadata.backchannel_logout_uri,
    backchannel_logout_session_required: metadata.backchannel_logout_session_required,
    require_pushed_authorization_requests: metadata.require_pushed_authorization_requests,
    dpop_bound_access_tokens: metadata.dpop_bound_access_tokens,
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
    jwks: metadata.jwks,
    jwks_uri: metadata.jwks_uri,
  };
}

function extraOf(metadata: Metadata): ExtraClientMetadata {
  const { logo_uri, client_uri, policy_uri, tos_uri, contacts } = metadata;
  return JSON.parse(
    JSON.stringify({ logo_uri, client_uri, policy_uri, tos_uri, contacts }),
  ) as ExtraClientMetadata;
}

/** Admin API: an initial access token (RFC 7591 §3), shown once, stored as a keyed hash. */
export async function issueInitialAccessToken(ctx: AuthContext, input: unknown) {
  const parsed = z
    .object({
      max_uses: z.number().int().min(1).max(1000).default(1),
      expires_in: z
        .number()
        .int()
        .min(60)
        .max(30 * 86_400)
        .default(86_400),
    })
    .strict()
    .safeParse(input ?? {});
  if (!parsed.success)
    throw new OAuthError('invalid_request', 'max_uses: 1–1000, expires_in: 60–2592000 seconds');
  const token = generateSecret();
  const id = randomUUID();
  const expiresAt = new Date(Date.now() + parsed.data.expires_in * 1000);
  await ctx.repos.registrations.saveInitialToken({
    id,
    tokenHash: ctx.hasher.hash(token),
    uses: parsed.data.max_uses,
    expiresAt,
  });
  return {
    id,
    initial_access_token: token,
    max_uses: parsed.data.max_uses,
    expires_at: expiresAt.toISOString(),
  };
}

/** RFC 7591 §3.1: registers a client for the holder of an initial access token. */
export async function registerDynamicClient(
  ctx: AuthContext,
  initialToken: string | undefined,
  body: unknown,
) {
  const tokenHash = initialToken === undefined ? undefined : ctx.hasher.hash(initialToken);
  // Refused before the metadata is read: no one without a token learns our validation rules.
  if (!tokenHash || !(await ctx.repos.registrations.initialTokenUsable(tokenHash)))
    throw invalidToken('a valid initial access token is required');
  const metadata = parseMetadata(body);
  const registrationToken = generateSecret();
  const { client, clientSecret } = await registerClient(ctx, toAdminInput(metadata), {
    // Spent only once the metadata is valid, so a typo does not burn a single-use token; the update
    // is atomic, so racing registrations cannot overspend it.
    persist: async (record) => {
      if (!(await ctx.repos.registrations.consumeInitialToken(tokenHash)))
        throw invalidToken('a valid initial access token is required');
      return ctx.repos.clients.save(record);
    },
  });
  const extra = extraOf(metadata);
  await ctx.repos.registrations.save(client.clientId, ctx.hasher.hash(registrationToken), extra);
  return presentRegistration(ctx, client, extra, { registrationToken, clientSecret });
}

/** RFC 7592 §3: the registration access token, compared through its keyed hash in constant time. */
async function authorize(ctx: AuthContext, clientId: string, token: string | undefined) {
  const registration = await ctx.repos.registrations.find(clientId);
  const valid = ctx.hasher.verify(token ?? '', registration?.registrationTokenHash);
  const client = registration && valid ? await ctx.repos.clients.findById(clientId) : undefined;
  if (!registration || !client) throw invalidToken('invalid registration access token');
  return { client, extra: registration.extra };
}

/** RFC 7592 §2.1: the client's current metadata; the token presented stays valid. */
export async function readRegistration(ctx: AuthContext, clientId: string, token: string | undefined) {
  const { client, extra } = await authorize(ctx, clientId, token);
  return presentRegistration(ctx, client, extra, { registrationToken: token ?? '' });
}

/**
 * RFC 7592 §2.2: replaces the whole metadata (fields left out take their defaults). The secret is kept
 * (a client_secret sent must be it); the registration access token is rotated (§2.2 allows it).
 */
export async function replaceRegistration(
  ctx: AuthContext,
  clientId: string,
  token: string | undefined,
  body: unknown,
) {
  const { client: current } = await authorize(ctx, clientId, token);
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (fields.client_id !== clientId)
    throw new OAuthError(
      'invalid_client_metadata',
      'client_id must be the registered client_id (RFC 7592 §2.2)',
    );
  if (
    fields.client_secret !== undefined &&
    (typeof fields.client_secret !== 'string' || !ctx.hasher.verify(fields.client_secret, current.secretHash))
  )
    throw new OAuthError('invalid_client_metadata', 'client_secret does not match the registered secret');
  const metadata = parseMetadata(body);
  const { client, clientSecret } = await registerClient(ctx, toAdminInput(metadata), {
    clientId,
    // A confidential client keeps its secret; one that becomes confidential gets a new one.
    persist: (record) => {
      const keep = record.secretHash !== null && current.secretHash !== null;
      return ctx.repos.registrations.replaceClient({
        ...record,
        secretHash: keep ? current.secretHash : record.secretHash,
        secretCiphertext: keep
          ? keptSealedSecret(ctx, record, current, fields.client_secret)
          : record.secretCiphertext,
      });
    },
  });
  const registrationToken = generateSecret();
  const extra = extraOf(metadata);
  await ctx.repos.registrations.save(clientId, ctx.hasher.hash(registrationToken), extra);
  return presentRegistration(ctx, client, extra, {
    registrationToken,
    clientSecret: current.secretHash ? undefined : clientSecret,
  });
}

/** RFC 7592 §2.3: deletes the client and revokes its grants and tokens. */
export async function deleteRegistration(ctx: AuthContext, clientId: string, token: string | undefined) {
  await authorize(ctx, clientId, token);
  // Revoke first: the tokens' hashes clear the introspection cache before the rows go (as the admin API).
  await revokeGrants(ctx, { client_id: clientId }, 'client_deleted');
  await ctx.repos.clients.delete(clientId);
}

/** RFC 7591 §3.2.1 / RFC 7592 §3: the client information response. */
function presentRegistration(
  ctx: AuthContext,
  client: Client,
  extra: ExtraClientMetadata,
  secrets: { registrationToken: string; clientSecret?: string },
) {
  return {
    client_id: client.clientId,
    ...(secrets.clientSecret ? { client_secret: secrets.clientSecret } : {}),
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    ...(client.secretHash ? { client_secret_expires_at: 0 } : {}),
    client_name: client.name,
    application_type: client.applicationType,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: client.responseTypes,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    ...(client.scopes.length > 0 ? { scope: client.scopes.join(' ') } : {}),
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    ...(client.backchannelLogoutUri
      ? {
          backchannel_logout_uri: client.backchannelLogoutUri,
          backchannel_logout_session_required: client.backchannelLogoutSessionRequired,
        }
      : {}),
    require_pushed_authorization_requests: client.requirePushedAuthorizationRequests,
    dpop_bound_access_tokens: client.dpopBoundAccessTokens,
    ...(client.jwks ? { jwks: client.jwks } : {}),
    ...(client.jwksUri ? { jwks_uri: client.jwksUri } : {}),
    ...extra,
    registration_access_token: secrets.registrationToken,
    registration_client_uri: `${ctx.config.ISSUER}${REGISTRATION_PATH}/${encodeURIComponent(client.clientId)}`,
  };
}

export const REGISTRATION_PATH = '/register';

/**
 * A kept secret under client_secret_jwt must stay sealed as the same secret: the current sealed form, or
 * (switching from a hashed-only method) the client_secret the request sent, checked above against the hash.
 */
function keptSealedSecret(
  ctx: AuthContext,
  record: Omit<Client, 'createdAt'>,
  current: Client,
  sent: unknown,
): string | null {
  if (record.tokenEndpointAuthMethod !== 'client_secret_jwt') return null;
  if (current.secretCiphertext) return current.secretCiphertext;
  if (typeof sent !== 'string')
    throw new OAuthError(
      'invalid_client_metadata',
      'switching to client_secret_jwt needs the current client_secret in the request',
    );
  return createClientSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).encrypt(sent);
}
