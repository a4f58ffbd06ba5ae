import type { AuthContext } from '../auth-context';
import type { AsymmetricAlg } from '../tokens/signing-key-store';
import type { AdminActor } from './admin-actor';
import { recordAdminEvent } from './audit-events';

/** Signing keys, current and retired, newest first (bounded: rotations are rare). */
export const listSigningKeys = (ctx: AuthContext) => ctx.repos.admin.listSigningKeys(100);

/**
 * A new current key for `alg`; the retired ones stay published until every token they may have signed
 * has expired (the longest ID token or JWT access-token lifetime).
 */
export async function rotateSigningKeys(ctx: AuthContext, actor: AdminActor, alg: AsymmetricAlg) {
  const keep = Math.max(ctx.config.ID_TOKEN_TTL_SECONDS, await ctx.repos.clients.maxJwtAccessTtl());
  await ctx.keys.rotate(alg, keep);
  await recordAdminEvent(
    ctx,
    actor,
    'signing_key.rotate',
    { type: 'signing_key' },
    { alg, keep_seconds: keep },
  );
}
