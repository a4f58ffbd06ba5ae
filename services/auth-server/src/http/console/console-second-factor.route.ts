import { Router, type Request, type Response } from 'express';
import { authenticationOf } from '../../domain/sessions/authentication-methods';
import type { MfaChallenge } from '../../domain/sessions/mfa-challenge';
import { answerThrottled } from '../answer-throttled';
import { auditPageEvent, clientIp } from '../page-audit';
import { PageError } from '../page-error';
import { renderSecondFactor } from '../views/second-factor.view';
import type { ConsoleContext } from './console-context';
import { field } from './console-form';
import type { ConsoleHandlers } from './console-frame';
import { CONSOLE_LOGIN, CONSOLE_SECOND_FACTOR } from './console-paths';
import { finishConsoleSignIn, isConsoleAdmin } from './console-sign-in';

const expired = () =>
  new PageError(400, 'Sign-in expired', 'This sign-in took too long or was finished already. Sign in again.');

/**
 * GET/POST /admin/console/login/second-factor: after an admin's correct password at the console, a TOTP
 * code or a recovery code (domain/mfa/ through the pages' TotpService). The state in between is an MFA
 * challenge of purpose 'console' (mfa-challenge-manager.ts): its own cookie (Path=/admin, SameSite=Strict)
 * and MAC key, five minutes, used once, so it never finishes a /login sign-in and a /login challenge never
 * finishes this one. CSRF as every console form. Wrong codes count in the pages' second-factor throttle
 * (per user and per address, second-factor-throttle.ts): a guess here is a guess there. Only then does the
 * console session exist, with amr ['pwd', 'otp', 'mfa'].
 */
export function consoleSecondFactorRoute(cc: ConsoleContext, { form }: ConsoleHandlers): Router {
  const { page } = cc;
  const router = Router();

  /** This browser's console challenge, while its user is still an enabled admin. */
  async function challengeOf(req: Request): Promise<MfaChallenge | null> {
    const challenge = await cc.challenges.current(req);
    return challenge && (await isConsoleAdmin(cc, challenge.userId)) ? challenge : null;
  }

  const show = (req: Request, res: Response, challenge: MfaChallenge, status = 200, error?: string) =>
    res
      .status(status)
      .type('html')
      .send(
        renderSecondFactor({
          chrome: page.chrome(req),
          csrfToken: cc.csrf.token(req, res),
          username: challenge.username,
          action: CONSOLE_SECOND_FACTOR,
          ...(error ? { error } : {}),
        }),
      );

  router.get(CONSOLE_SECOND_FACTOR, async (req, res) => {
    const challenge = await challengeOf(req);
    if (!challenge) return res.redirect(303, CONSOLE_LOGIN);
    return show(req, res, challenge);
  });

  router.post(CONSOLE_SECOND_FACTOR, form, async (req, res) => {
    const challenge = await challengeOf(req);
    if (!challenge) throw expired();
    const { t } = page.chrome(req).i18n;
    const code = field(req, 'code') ?? '';
    if (!code) return show(req, res, challenge, 400, t('Enter the code.'));
    const ip = clientIp(req);
    const who = { userId: challenge.userId, console: 'admin' };
    const wait = await page.mfa.throttle.retryAfter(challenge.userId, ip);
    if (wait > 0) {
      const error = t('Too many wrong codes. Try again in {seconds} seconds.', { seconds: wait });
      return answerThrottled(
        page.logger,
        req,
        res,
        { event: 'mfa.throttled', fields: who, wait, error },
        (status, message) => show(req, res, challenge, status, message),
      );
    }
    const verified = await page.mfa.totp.verifySecondFactor(challenge.userId, code);
    if (!verified) {
      await page.mfa.throttle.recordFailure(challenge.userId, ip);
      auditPageEvent(page.logger, req, 'mfa.failure', { ...who, method: 'otp' });
      return show(req, res, challenge, 400, t('That code is not valid. Try again.'));
    }
    // Used once: a second request with the same cookie (a double submit) loses here.
    if (!(await cc.challenges.finish(req, res))) throw expired();
    await page.mfa.throttle.recordSuccess(challenge.userId);
    if (verified.recoveryCode)
      auditPageEvent(page.logger, req, 'mfa.recovery_code_used', {
        ...who,
        recoveryCodesLeft: (await page.mfa.totp.status(challenge.userId)).recoveryCodesLeft,
      });
    const { amr } = authenticationOf([...challenge.amr, verified.method]);
    auditPageEvent(page.logger, req, 'mfa.success', { ...who, amr });
    await finishConsoleSignIn(cc, req, res, challenge, amr);
  });
  return router;
}
