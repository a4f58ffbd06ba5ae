import type { Request, Response } from 'express';
import { ADMIN_ROLE } from '../../domain/admin/admin-actor';
import { recordAdminEvent } from '../../domain/admin/audit-events';
import type { AuthenticationMethod } from '../../domain/sessions/authentication-methods';
import { auditPageEvent, clientIp } from '../page-audit';
import type { ConsoleContext } from './console-context';
import { CONSOLE_HOME } from './console-paths';

/**
 * The end of every console sign-in (password alone, password and second factor, passkey): a new console
 * session that records how (amr, RFC 8176), the audit event `console.sign_in` with the same amr, and 303 to
 * the console's home (RFC 9700 §4.12: never 307, which would replay the credentials).
 */
export async function finishConsoleSignIn(
  cc: ConsoleContext,
  req: Request,
  res: Response,
  user: { userId: string; username: string },
  amr: AuthenticationMethod[],
): Promise<void> {
  await cc.sessions.start(req, res, { userId: user.userId, username: user.username, amr });
  await recordAdminEvent(
    cc.auth,
    { kind: 'user', userId: user.userId, username: user.username, sourceIp: clientIp(req) },
    'console.sign_in',
    { type: 'console' },
    { amr },
  );
  auditPageEvent(cc.page.logger, req, 'login.success', {
    userId: user.userId,
    username: user.username,
    console: 'admin',
    amr,
  });
  res.redirect(303, CONSOLE_HOME);
}

/** Whether the admin holds the role still (between the password and the second factor it may be revoked). */
export async function isConsoleAdmin(cc: ConsoleContext, userId: string): Promise<boolean> {
  const user = await cc.auth.repos.admin.findUser(userId);
  return user !== undefined && !user.disabled && user.roles.includes(ADMIN_ROLE);
}
