import { z } from 'zod';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { ResourceServer } from '../clients/resource-server';
import { checkClientJwks, clientJwksSchema } from '../clients/client-jwks';
import { checkJwksUri } from '../clients/register-client';
import { createResourceServerSecretEncryption } from '../crypto/key-encryption';
import { generateSecret } from '../crypto/secret-hasher';

export const resourceServerSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9._~-]{1,100}$/),
    audience: z.string().min(1).max(500),
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/)).default([]),
    /** Public keys for private_key_jwt at /token_info (RFC 7523), as a client's (RFC 7591 §2). */
    jwks: clientJwksSchema.optional(),
    jwks_uri: z.string().max(2000).optional(),
    /**
     * client_secret_jwt at /token_info (RFC 7523 §2.2): the secret is then also kept sealed, since checking an
     * HMAC assertion needs it; Basic keeps working (/revocations/stream and the relay header take only Basic).
     */
    client_secret_jwt: z.boolean().optional(),
  })
  .strict();

/** A resource server and its Basic credential for /token_info: secret shown once, stored as a keyed hash. */
export async function registerResourceServer(
  ctx: AuthContext,
  input: unknown,
  secret = generateSecret(),
): Promise<{ resourceServer: ResourceServer; secret: string }> {
  const parsed = resourceServerSchema.safeParse(input);
  if (!parsed.success)
    throw new OAuthError(
      'invalid_request',
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  if (parsed.data.jwks && parsed.data.jwks_uri !== undefined)
    throw new OAuthError('invalid_request', 'jwks and jwks_uri are exclusive (RFC 7591 §2)');
  if (parsed.data.jwks) checkClientJwks(parsed.data.jwks);
  if (parsed.data.jwks_uri !== undefined) checkJwksUri(parsed.data.jwks_uri);
  const existing = await ctx.repos.resourceServers.findById(parsed.data.id);
  if (existing) throw new OAuthError('conflict', `resource server ${parsed.data.id} exists`);
  const resourceServer = await ctx.repos.resourceServers.save({
    id: parsed.data.id,
    audience: parsed.data.audience,
    scopes: parsed.data.scopes,
    jwks: parsed.data.jwks ?? null,
    jwksUri: parsed.data.jwks_uri ?? null,
    secretHash: ctx.hasher.hash(secret),
    secretCiphertext: parsed.data.client_secret_jwt
      ? createResourceServerSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).encrypt(secret)
      : null,
  });
  return { resourceServer, secret };
}

export const presentResourceServer = (rs: ResourceServer) => ({
  id: rs.id,
  audience: rs.audience,
  scopes: rs.scopes,
  ...(rs.jwks ? { jwks: rs.jwks } : {}),
  ...(rs.jwksUri ? { jwks_uri: rs.jwksUri } : {}),
  ...(rs.secretCiphertext ? { client_secret_jwt: true } : {}),
});
