import { z } from 'zod';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { GrantFilter } from '../grants/grant';
import type { LogoutService } from '../logout/logout-service';
import { revokeGrants } from '../revocation/revoke';
import type { AdminActor } from './admin-actor';
import { recordAdminEvent } from './audit-events';
import { clampLimit } from './user-admin';

const uuid = z.string().uuid();
const filterSchema = z
  .object({ user_id: uuid.optional(), client_id: z.string().min(1).max(200).optional() })
  .strict();

function parseFilter(query: unknown): { userId?: string; clientId?: string } {
  const parsed = filterSchema.safeParse(query);
  if (!parsed.success) throw new OAuthError('invalid_request', 'filter by user_id (a uuid) or client_id');
  return {
    ...(parsed.data.user_id ? { userId: parsed.data.user_id } : {}),
    ...(parsed.data.client_id ? { clientId: parsed.data.client_id } : {}),
  };
}

/** Active grants by user or client (or the newest of all), bounded. */
export function listGrants(ctx: AuthContext, filter: unknown, limit?: number) {
  return ctx.repos.admin.listGrants({ ...parseFilter(filter), limit: clampLimit(limit) });
}

/** Live browser sessions, by user or all, bounded. */
export function listSessions(ctx: AuthContext, filter: unknown, limit?: number) {
  const { userId } = parseFilter(filter);
  return ctx.repos.admin.listSessions({ ...(userId ? { userId } : {}), limit: clampLimit(limit) });
}

/**
 * Revokes grants (by grant, user or client) with their tokens, through revokeGrants (cache purge and
 * /revocations/stream), and records it.
 */
export async function revokeGrantsAsAdmin(ctx: AuthContext, actor: AdminActor, filter: GrantFilter) {
  const result = await revokeGrants(ctx, filter, 'admin');
  const [by, id] = Object.entries(filter)[0] ?? ['', ''];
  await recordAdminEvent(
    ctx,
    actor,
    'grants.revoke',
    { type: by === 'user_id' ? 'user' : by === 'client_id' ? 'client' : 'grant', id: id ?? null },
    { by, revoked_grants: result.grants, revoked_tokens: result.tokens },
  );
  return result;
}

/**
 * Ends one browser session of a user, as the account page does: the row goes, and every app that got a
 * grant in it is sent a logout token (OIDC Back-Channel Logout 1.0).
 */
export async function endSession(
  ctx: AuthContext,
  logout: Pick<LogoutService, 'sessionsEnded'>,
  actor: AdminActor,
  userId: string,
  sid: string,
) {
  if (!uuid.safeParse(userId).success || sid.length === 0 || sid.length > 200)
    throw new OAuthError('not_found', 'no such session');
  if (!(await ctx.repos.admin.deleteSession(userId, sid)))
    throw new OAuthError('not_found', 'no such session');
  const notified = await logout.sessionsEnded(userId, [sid]);
  await recordAdminEvent(
    ctx,
    actor,
    'session.end',
    { type: 'session', id: sid },
    {
      user_id: userId,
      backchannel_logouts: notified,
    },
  );
  return { backchannelLogouts: notified };
}
