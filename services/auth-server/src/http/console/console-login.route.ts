import { Router } from 'express';
import { ADMIN_ROLE } from '../../domain/admin/admin-actor';
import { checkLogin } from '../../domain/users/check-login';
import { answerThrottled } from '../answer-throttled';
import { auditPageEvent, clientIp } from '../page-audit';
import { field } from './console-form';
import type { ConsoleContext } from './console-context';
import type { ConsoleHandlers } from './console-frame';
import { renderConsoleLogin } from './console-login.view';
import { CONSOLE_HOME, CONSOLE_LOGIN, CONSOLE_SECOND_FACTOR } from './console-paths';
import { finishConsoleSignIn } from './console-sign-in';

/**
 * GET/POST /admin/console/login: the admin's password, then whatever the account holds beyond it. With
 * TOTP on, a second step (console-second-factor.route.ts) before any session exists; with passkeys only,
 * the passkey sign-in (the password alone would be the weakest way in); with nothing,
 * ADMIN_CONSOLE_REQUIRE_MFA decides between a password session and a refusal that says where to enrol.
 * The pages' login throttle (same counters: a guess here is a guess there). A user without the admin role
 * is "not found" to this store, so it gets the wrong-password answer after the same argon2 cost.
 */
export function consoleLoginRoute(cc: ConsoleContext, { form }: ConsoleHandlers): Router {
  const { page } = cc;
  const loginStore = {
    findByUsername: (username: string) => cc.auth.repos.admin.findLoginWithRole(username, ADMIN_ROLE),
  };
  const router = Router();

  router.get(CONSOLE_LOGIN, async (req, res) => {
    if (await cc.sessions.current(req)) return res.redirect(303, CONSOLE_HOME);
    res
      .type('html')
      .send(renderConsoleLogin({ chrome: page.chrome(req), csrfToken: cc.csrf.token(req, res) }));
  });

  router.post(CONSOLE_LOGIN, form, async (req, res) => {
    const { t } = page.chrome(req).i18n;
    const username = field(req, 'username') ?? '';
    const password = typeof req.body?.password === 'string' ? (req.body.password as string) : '';
    const again = (status: number, error: string) =>
      res
        .status(status)
        .type('html')
        .send(
          renderConsoleLogin({
            chrome: page.chrome(req),
            csrfToken: cc.csrf.token(req, res),
            username,
            error,
          }),
        );
    if (!username || !password) return again(400, t('Enter your username and password.'));
    const ip = clientIp(req);
    const wait = await page.throttle.retryAfter(username, ip);
    if (wait > 0) {
      const error = t('Too many failed sign-in attempts. Try again in {seconds} seconds.', { seconds: wait });
      const fields = { username, console: 'admin' };
      return answerThrottled(page.logger, req, res, { event: 'login.throttled', fields, wait, error }, again);
    }
    const user = await checkLogin(loginStore, username, password);
    if (!user) {
      await page.throttle.recordFailure(username, ip);
      auditPageEvent(page.logger, req, 'login.failure', { username, console: 'admin' });
      return again(400, t('Incorrect username or password.'));
    }
    await page.throttle.recordSuccess(username, ip);
    const who = { userId: user.userId, username: user.username, console: 'admin' };

    if ((await page.mfa.secondFactors(user.userId)).includes('otp')) {
      await cc.challenges.start(req, res, {
        userId: user.userId,
        amr: ['pwd'],
        sessionHash: null,
        returnTo: CONSOLE_HOME,
      });
      auditPageEvent(page.logger, req, 'login.password_ok', who);
      return res.redirect(303, CONSOLE_SECOND_FACTOR);
    }
    // A passkey is a second factor the console's password step cannot take: its own sign-in does.
    const passkeys = page.passkeys ? await page.passkeys.deps.passkeys.listByUser(user.userId) : [];
    if (passkeys.length > 0) {
      auditPageEvent(page.logger, req, 'login.second_factor_missing', { ...who, expected: 'passkey' });
      return again(400, t('Your account has a passkey: sign in to the admin console with your passkey.'));
    }
    if (page.config.ADMIN_CONSOLE_REQUIRE_MFA) {
      auditPageEvent(page.logger, req, 'login.second_factor_missing', { ...who, expected: 'any' });
      return again(
        403,
        t(
          'The admin console requires two-step verification. Set up an authenticator app or a passkey on your account page (/account), then sign in here again.',
        ),
      );
    }
    await finishConsoleSignIn(cc, req, res, user, ['pwd']);
  });
  return router;
}
