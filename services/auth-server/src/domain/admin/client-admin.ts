import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import { checkAdminLogoUri } from '../clients/client-logo';
import { clientRegistrationSchema, presentClient, registerClient } from '../clients/register-client';
import { createClientSecretEncryption } from '../crypto/key-encryption';
import { generateSecret } from '../crypto/secret-hasher';
import { revokeGrants } from '../revocation/revoke';
import type { AdminActor } from './admin-actor';
import { recordAdminEvent } from './audit-events';

/**
 * Client administration shared by the JSON admin API and the console: every change is validated by
 * registerClient's rules and recorded once as an audit event (ids and names, never the secret).
 */
export async function createClientAsAdmin(ctx: AuthContext, actor: AdminActor, input: unknown) {
  const result = await registerClient(ctx, input);
  const { client } = result;
  await recordAdminEvent(
    ctx,
    actor,
    'client.create',
    { type: 'client', id: client.clientId },
    {
      name: client.name,
      client_type: client.clientType,
      redirect_uris: client.redirectUris,
      grant_types: client.grantTypes,
      scopes: client.scopes,
    },
  );
  return result;
}

/** The fields an admin may change on a client; its type, auth method and keys stay (delete and recreate). */
export const clientUpdateSchema = clientRegistrationSchema
  .pick({
    name: true,
    redirect_uris: true,
    post_logout_redirect_uris: true,
    grant_types: true,
    response_types: true,
    scopes: true,
    token_format: true,
    jwt_alg: true,
    access_token_ttl_seconds: true,
    refresh_token_ttl_seconds: true,
    refresh_idle_ttl_seconds: true,
  })
  .partial()
  .strict();

/**
 * The registration input that re-creates `client` as it is: its wire form (presentClient) without what is
 * not registration metadata (client_id, created_at), so the two can never list different fields.
 * registerClient's schema is strict: a field added to the wire form that is not metadata fails every
 * update (client-admin tests), instead of going unnoticed.
 */
function currentMetadata(client: Client): Record<string, unknown> {
  const {
    client_id: _clientId,
    created_at: _createdAt,
    refresh_token_ttl_seconds: refreshTtl,
    ...metadata
  } = presentClient(client);
  // null here means "no refresh grant", not "never expires": let the default apply if one is added.
  return refreshTtl === null ? metadata : { ...metadata, refresh_token_ttl_seconds: refreshTtl };
}

/**
 * Splits the display-only `logo_uri` (client_logos, not a registration field) off an update: a string is
 * checked as on create (checkAdminLogoUri), null clears it, absent leaves it.
 */
function takeLogoUri(
  ctx: AuthContext,
  input: unknown,
): { logoUri: string | null | undefined; rest: unknown } {
  if (typeof input !== 'object' || input === null || !Object.hasOwn(input, 'logo_uri'))
    return { logoUri: undefined, rest: input };
  const { logo_uri: value, ...rest } = input as Record<string, unknown>;
  return { logoUri: value === null ? null : checkAdminLogoUri(value, ctx.config.UI_LOGO_ORIGINS), rest };
}

/**
 * Changes redirect URIs, grant types, scopes, token format and lifetimes, and the logo_uri. The merged
 * metadata goes through registerClient's checks (redirect URI rules, JWTs must expire, public clients
 * without client_credentials…) and is written whole; the secret and its sealed copy are kept. Tokens
 * already issued keep their lifetimes. Everything is checked before anything is written.
 */
export async function updateClient(ctx: AuthContext, actor: AdminActor, clientId: string, input: unknown) {
  const { logoUri, rest } = takeLogoUri(ctx, input);
  const patch = clientUpdateSchema.safeParse(rest);
  if (!patch.success)
    throw new OAuthError(
      'invalid_client_metadata',
      patch.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  // Only the fields sent: zod's partial() still fills in the defaults of absent fields (redirect_uris: [],
  // scopes: [] …), which would reset every field a PATCH (or the console's form) leaves out.
  const given = Object.fromEntries(
    Object.entries(patch.data).filter(([name]) => Object.hasOwn(rest as object, name)),
  );
  const current = await ctx.repos.clients.findById(clientId);
  if (!current) throw new OAuthError('not_found', 'no such client');
  const { client } = await registerClient(
    ctx,
    { ...currentMetadata(current), ...given },
    {
      clientId,
      persist: (record) =>
        ctx.repos.admin.updateClient({
          ...record,
          secretHash: current.secretHash,
          secretCiphertext: current.secretCiphertext,
        }),
    },
  );
  if (logoUri !== undefined) await ctx.repos.clientLogos.saveLogoUri(clientId, logoUri);
  await recordAdminEvent(
    ctx,
    actor,
    'client.update',
    { type: 'client', id: clientId },
    { fields: [...Object.keys(given), ...(logoUri !== undefined ? ['logo_uri'] : [])].sort() },
  );
  return client;
}

/**
 * A new secret for a client that authenticates with one; the old one stops working at once (only the new
 * hash is stored). Returned here once. Tokens already issued stay valid: revoke by client for that.
 */
export async function rotateClientSecret(ctx: AuthContext, actor: AdminActor, clientId: string) {
  const client = await ctx.repos.clients.findById(clientId);
  if (!client) throw new OAuthError('not_found', 'no such client');
  if (client.secretHash === null)
    throw new OAuthError('invalid_request', 'this client does not authenticate with a secret');
  const secret = generateSecret();
  await ctx.repos.clients.updateSecretHash(
    clientId,
    ctx.hasher.hash(secret),
    client.secretCiphertext === null
      ? null
      : createClientSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).encrypt(secret),
  );
  await recordAdminEvent(ctx, actor, 'client.secret_rotate', { type: 'client', id: clientId });
  return { client, clientSecret: secret };
}

/** Deletes a client after revoking its grants (their token hashes clear the introspection cache first). */
export async function deleteClient(ctx: AuthContext, actor: AdminActor, clientId: string) {
  const revoked = await revokeGrants(ctx, { client_id: clientId }, 'client_deleted');
  if (!(await ctx.repos.clients.delete(clientId))) throw new OAuthError('not_found', 'no such client');
  await recordAdminEvent(
    ctx,
    actor,
    'client.delete',
    { type: 'client', id: clientId },
    { revoked_grants: revoked.grants, revoked_tokens: revoked.tokens },
  );
}
