import express, { Router } from 'express';
import { changePassword } from '../domain/users/change-password';
import { checkNewPassword, MIN_NEW_PASSWORD_LENGTH } from '../domain/users/password-policy';
import { sendAccountPage } from './account-page';
import { answerThrottled } from './answer-throttled';
import { auditPageEvent, clientIp } from './page-audit';
import type { PageContext } from './page-context';
import { formField } from './page-form';

/**
 * POST /account/password: the signed-in user changes their password. The new one follows NIST SP 800-63B
 * (password-policy.ts); the current one is checked like a login and a wrong one counts against the same
 * throttle (this account at this address, and the address), asked before argon2 runs. On success the
 * user's OTHER sessions end, with back-channel logout to their apps (whoever knew the old password may
 * hold one of them); this browser stays signed in.
 */
export function accountPasswordRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.post('/account/password', form, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, '/login?return_to=%2Faccount');
    const { t } = ctx.chrome(req).i18n;
    const refuse = (status: number, field: 'current' | 'new', message: string) =>
      sendAccountPage(ctx, req, res, session, { status, passwordError: { field, message } });
    const current = formField(req, 'current_password') ?? '';
    const next = formField(req, 'new_password') ?? '';
    const problem = checkNewPassword({
      username: session.username,
      password: next,
      confirmation: formField(req, 'new_password_confirm') ?? '',
    });
    if (!current) return refuse(400, 'current', t('Enter your current password.'));
    if (problem === 'mismatch') return refuse(400, 'new', t('The two new passwords are not the same.'));
    if (problem === 'too_short')
      return refuse(
        400,
        'new',
        t('Choose a new password of at least {min} characters.', { min: MIN_NEW_PASSWORD_LENGTH }),
      );
    if (problem === 'too_long') return refuse(400, 'new', t('That new password is too long.'));
    if (problem === 'is_username') return refuse(400, 'new', t('Your new password cannot be your username.'));

    const ip = clientIp(req);
    const wait = await ctx.throttle.retryAfter(session.username, ip);
    if (wait > 0) {
      const error = t('Too many wrong passwords. Try again in {seconds} seconds.', { seconds: wait });
      const fields = { userId: session.userId };
      return answerThrottled(
        ctx.logger,
        req,
        res,
        { event: 'password.change_throttled', fields, wait, error },
        (status, message) => refuse(status, 'current', message),
      );
    }
    if (!(await changePassword(ctx.users, session, current, next))) {
      await ctx.throttle.recordFailure(session.username, ip);
      auditPageEvent(ctx.logger, req, 'password.change_failure', { userId: session.userId });
      return refuse(400, 'current', t('Your current password is not correct.'));
    }
    await ctx.throttle.recordSuccess(session.username, ip);
    const ended = await ctx.sessions.endOthers(session);
    const notified = await ctx.logout.sessionsEnded(session.userId, ended);
    auditPageEvent(ctx.logger, req, 'password.changed', {
      userId: session.userId,
      sessionsEnded: ended.length,
      backchannelLogouts: notified,
    });
    res.redirect(303, '/account?password=changed');
  });
  return router;
}
