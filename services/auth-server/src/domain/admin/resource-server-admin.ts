import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import { createResourceServerSecretEncryption } from '../crypto/key-encryption';
import { generateSecret } from '../crypto/secret-hasher';
import type { AdminActor } from './admin-actor';
import { recordAdminEvent } from './audit-events';
import { registerResourceServer } from './register-resource-server';

/** Resource-server administration shared by the JSON admin API and the console, each action audited. */
export async function createResourceServerAsAdmin(ctx: AuthContext, actor: AdminActor, input: unknown) {
  const result = await registerResourceServer(ctx, input);
  await recordAdminEvent(
    ctx,
    actor,
    'resource_server.create',
    { type: 'resource_server', id: result.resourceServer.id },
    { audience: result.resourceServer.audience, scopes: result.resourceServer.scopes },
  );
  return result;
}

/**
 * A new /token_info secret, shown once; the sealed copy is renewed too when the row keeps one
 * (client_secret_jwt). Another instance's 5 s row cache may accept the old secret until it expires.
 */
export async function rotateResourceServerSecret(ctx: AuthContext, actor: AdminActor, id: string) {
  const rs = await ctx.repos.resourceServers.findById(id);
  if (!rs) throw new OAuthError('not_found', 'no such resource server');
  const secret = generateSecret();
  await ctx.repos.resourceServers.updateSecret(
    id,
    ctx.hasher.hash(secret),
    createResourceServerSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).encrypt(secret),
  );
  await recordAdminEvent(ctx, actor, 'resource_server.secret_rotate', { type: 'resource_server', id });
  return { resourceServer: rs, secret };
}

export async function deleteResourceServer(ctx: AuthContext, actor: AdminActor, id: string) {
  if (!(await ctx.repos.resourceServers.delete(id)))
    throw new OAuthError('not_found', 'no such resource server');
  await recordAdminEvent(ctx, actor, 'resource_server.delete', { type: 'resource_server', id });
}
