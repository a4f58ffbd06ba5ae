import express, { Router, type Request, type Response } from 'express';
import { authenticationOf } from '../domain/sessions/authentication-methods';
import type { MfaChallenge } from '../domain/sessions/mfa-challenge';
import { LOGIN_MARK_PARAM } from './authorize-params';
import { continuation } from './login.route';
import { auditPageEvent, clientIp } from './page-audit';
import type { PageContext } from './page-context';
import { PageError } from './page-error';
import { formField } from './page-form';
import { renderSecondFactor } from './views/second-factor.view';

const expired = () =>
  new PageError(400, 'Sign-in expired', 'This sign-in took too long or was finished already. Sign in again.');

/**
 * GET/POST /login/second-factor: after a correct password (or for a step-up of a signed-in session), a TOTP
 * code or a recovery code. Only then does the session exist (or get raised), with amr ['pwd', 'otp', 'mfa'].
 * The state in between is the MFA challenge (mfa-challenge-manager.ts); the form is CSRF-protected; wrong
 * codes are throttled per user and per address (second-factor-throttle.ts). Success answers 303.
 */
export function secondFactorRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  /** The challenge of this browser; a step-up's only while the session it raises is still this browser's. */
  async function challengeOf(req: Request): Promise<MfaChallenge | null> {
    const challenge = await ctx.mfa.challenges.current(req);
    if (!challenge?.sessionHash) return challenge;
    const session = ctx.sessions.sessionHashOf(req);
    return session && session.equals(challenge.sessionHash) ? challenge : null;
  }

  const page = (req: Request, res: Response, challenge: MfaChallenge, status = 200, error?: string) =>
    res
      .status(status)
      .type('html')
      .send(
        renderSecondFactor({
          chrome: ctx.chrome(req),
          csrfToken: ctx.csrf.token(req, res),
          username: challenge.username,
          ...(error ? { error } : {}),
        }),
      );

  router.get('/login/second-factor', async (req, res) => {
    const challenge = await challengeOf(req);
    if (!challenge) return res.redirect(303, '/login');
    return page(req, res, challenge);
  });

  router.post('/login/second-factor', form, ctx.csrf.require(), async (req, res) => {
    const challenge = await challengeOf(req);
    if (!challenge) throw expired();
    const { t } = ctx.chrome(req).i18n;
    const code = formField(req, 'code') ?? '';
    if (!code.trim()) return page(req, res, challenge, 400, t('Enter the code.'));
    const ip = clientIp(req);
    const wait = await ctx.mfa.throttle.retryAfter(challenge.userId, ip);
    if (wait > 0) {
      auditPageEvent(ctx.logger, req, 'mfa.throttled', { userId: challenge.userId, retryAfterSeconds: wait });
      res.set('Retry-After', String(wait));
      return page(
        req,
        res,
        challenge,
        429,
        t('Too many wrong codes. Try again in {seconds} seconds.', { seconds: wait }),
      );
    }
    const verified = await ctx.mfa.totp.verifySecondFactor(challenge.userId, code);
    if (!verified) {
      await ctx.mfa.throttle.recordFailure(challenge.userId, ip);
      auditPageEvent(ctx.logger, req, 'mfa.failure', { userId: challenge.userId, method: 'otp' });
      return page(req, res, challenge, 400, t('That code is not valid. Try again.'));
    }
    // Used once: a second request with the same cookie (a double submit) loses here.
    if (!(await ctx.mfa.challenges.finish(req, res))) throw expired();
    await ctx.mfa.throttle.recordSuccess(challenge.userId);
    if (verified.recoveryCode)
      auditPageEvent(ctx.logger, req, 'mfa.recovery_code_used', {
        userId: challenge.userId,
        recoveryCodesLeft: (await ctx.mfa.totp.status(challenge.userId)).recoveryCodesLeft,
      });
    const authentication = authenticationOf([...challenge.amr, verified.method]);
    auditPageEvent(ctx.logger, req, 'mfa.success', {
      userId: challenge.userId,
      amr: authentication.amr,
      stepUp: challenge.sessionHash ? 'yes' : 'no',
    });
    if (challenge.sessionHash) {
      const raised = await ctx.sessions.stepUp(req, res, authentication);
      if (!raised) throw expired();
      // A continuation that carried the login mark keeps it, under the raised session's new id.
      const marked = challenge.returnTo.includes(`${LOGIN_MARK_PARAM}=`);
      return res.redirect(
        303,
        marked ? continuation(challenge.returnTo, ctx.sessions.loginMark(raised)) : challenge.returnTo,
      );
    }
    const user = { userId: challenge.userId, username: challenge.username };
    const session = await ctx.sessions.start(req, res, user, authentication);
    auditPageEvent(ctx.logger, req, 'login.success', { userId: user.userId, username: user.username });
    return res.redirect(303, continuation(challenge.returnTo, ctx.sessions.loginMark(session)));
  });
  return router;
}
