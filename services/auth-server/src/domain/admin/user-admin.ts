import { z } from 'zod';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { LogoutService } from '../logout/logout-service';
import { revokeGrants } from '../revocation/revoke';
import { ADMIN_ROLE, type AdminActor } from './admin-actor';
import { recordAdminEvent } from './audit-events';
import { createUser } from './create-user';
import { resetMfa } from '../users/reset-mfa';

/** Largest page of users, grants or sessions a list returns. */
export const MAX_ADMIN_PAGE = 100;
/** How deep offset paging may go (deeper pages: search by prefix instead). */
export const MAX_ADMIN_OFFSET = 10_000;

export const clampLimit = (value: number | undefined, fallback = 50) =>
  Math.min(Math.max(Math.trunc(Number.isFinite(value) ? (value as number) : fallback), 1), MAX_ADMIN_PAGE);

const userIdSchema = z.string().uuid();

function requireUserId(userId: string): string {
  if (!userIdSchema.safeParse(userId).success) throw new OAuthError('not_found', 'no such user');
  return userId;
}

export async function createUserAsAdmin(ctx: AuthContext, actor: AdminActor, input: unknown) {
  const user = await createUser(ctx, input);
  await recordAdminEvent(
    ctx,
    actor,
    'user.create',
    { type: 'user', id: user.userId },
    { username: user.username },
  );
  return user;
}

/** Users by username prefix, bounded (limit ≤ MAX_ADMIN_PAGE, offset ≤ MAX_ADMIN_OFFSET). */
export function listUsers(ctx: AuthContext, query: { search?: string; limit?: number; offset?: number }) {
  const search = query.search?.trim().slice(0, 200) || undefined;
  const offset = Math.min(Math.max(Math.trunc(query.offset ?? 0) || 0, 0), MAX_ADMIN_OFFSET);
  return ctx.repos.admin.listUsers({ ...(search ? { search } : {}), limit: clampLimit(query.limit), offset });
}

export async function getUser(ctx: AuthContext, userId: string) {
  const user = await ctx.repos.admin.findUser(requireUserId(userId));
  if (!user) throw new OAuthError('not_found', 'no such user');
  return user;
}

/**
 * Disables a user: no new sign-in (every lookup skips disabled users), their browser and console sessions
 * end (the apps of those sessions are told, OIDC Back-Channel Logout), and their grants are revoked, so
 * refresh tokens and cached introspection answers die with them. Enabling restores sign-in only.
 */
export async function setUserEnabled(
  ctx: AuthContext,
  logout: Pick<LogoutService, 'sessionsEnded'>,
  actor: AdminActor,
  userId: string,
  enabled: boolean,
) {
  requireUserId(userId);
  if (actor.kind === 'user' && actor.userId === userId && !enabled)
    throw new OAuthError('invalid_request', 'an admin cannot disable their own account');
  if (!(await ctx.repos.admin.setUserDisabled(userId, !enabled)))
    throw new OAuthError('not_found', 'no such user');
  let details = {};
  if (!enabled) {
    const sids = await ctx.repos.admin.deleteUserSessions(userId);
    details = {
      sessions_ended: sids.length,
      backchannel_logouts: await logout.sessionsEnded(userId, sids),
      revoked_grants: (await revokeGrants(ctx, { user_id: userId }, 'user_disabled')).grants,
    };
  }
  await recordAdminEvent(
    ctx,
    actor,
    enabled ? 'user.enable' : 'user.disable',
    { type: 'user', id: userId },
    details,
  );
}

/** Grants or revokes the admin role (the console's key). Revoking ends the user's console sessions at once:
 *  every console request checks the role. An admin cannot drop their own role (no lock-out by a slip). */
export async function setAdminRole(ctx: AuthContext, actor: AdminActor, userId: string, granted: boolean) {
  requireUserId(userId);
  if (actor.kind === 'user' && actor.userId === userId && !granted)
    throw new OAuthError('invalid_request', 'an admin cannot revoke their own admin role');
  if (!(await ctx.repos.admin.setUserRole(userId, ADMIN_ROLE, granted)))
    throw new OAuthError('not_found', 'no such user');
  await recordAdminEvent(
    ctx,
    actor,
    granted ? 'user.role_grant' : 'user.role_revoke',
    { type: 'user', id: userId },
    {
      role: ADMIN_ROLE,
    },
  );
}

/**
 * The user's second factors go (resetMfa: TOTP, recovery codes and passkeys), so the next sign-in is by password
 * alone until they enrol again; recorded as an audit event and as the `mfa_reset` log line.
 */
export async function resetUserMfa(ctx: AuthContext, actor: AdminActor, userId: string) {
  const user = userIdSchema.safeParse(userId).success ? await ctx.repos.users.findById(userId) : undefined;
  if (!user) throw new OAuthError('not_found', 'no such user');
  const result = await resetMfa(ctx.repos, user.userId);
  ctx.audit('mfa_reset', {
    user_id: user.userId,
    totp_removed: result.totpRemoved,
    recovery_codes_removed: result.recoveryCodesRemoved,
    passkeys_removed: result.passkeysRemoved,
  });
  await recordAdminEvent(
    ctx,
    actor,
    'user.mfa_reset',
    { type: 'user', id: user.userId },
    {
      totp_removed: result.totpRemoved,
      recovery_codes_removed: result.recoveryCodesRemoved,
      passkeys_removed: result.passkeysRemoved,
    },
  );
  return { userId: user.userId, ...result };
}
