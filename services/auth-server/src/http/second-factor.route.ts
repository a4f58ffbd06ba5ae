import express, { Router } from 'express';
import { answerThrottled } from './answer-throttled';
import { auditPageEvent, clientIp } from './page-audit';
import type { PageContext } from './page-context';
import { formField } from './page-form';
import { createSecondFactorStep, secondStepExpired } from './second-factor-step';
import { secondFactorPasskeyRoute } from './second-factor-passkey.route';

/**
 * GET/POST /login/second-factor: after a correct password (or for a step-up of a signed-in session), a TOTP
 * code or a recovery code, or a passkey (second-factor-passkey.route.ts), whichever the user has and reaches
 * the level a step-up asks for. Only then does the session exist (or get raised): amr ['pwd', 'otp', 'mfa']
 * after a code. The state in between is the MFA challenge (mfa-challenge-manager.ts); the form is
 * CSRF-protected; wrong codes are throttled per user and per address (second-factor-throttle.ts). Success
 * answers 303.
 */
export function secondFactorRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const step = createSecondFactorStep(ctx);

  router.get('/login/second-factor', async (req, res) => {
    const challenge = await step.challenge(req);
    if (!challenge) return res.redirect(303, '/login');
    return step.page(req, res, challenge);
  });

  router.post('/login/second-factor', form, ctx.csrf.require(), async (req, res) => {
    const challenge = await step.challenge(req);
    if (!challenge) throw secondStepExpired();
    const { t } = ctx.chrome(req).i18n;
    const code = formField(req, 'code') ?? '';
    if (!code.trim()) return step.page(req, res, challenge, 400, t('Enter the code.'));
    // A step-up to a level a code cannot reach (phr: phishing-resistant) is answered by a passkey only.
    if (!(await ctx.mfa.choices(challenge)).code)
      return step.page(req, res, challenge, 400, t('A code cannot be used for this step.'));
    const ip = clientIp(req);
    const wait = await ctx.mfa.throttle.retryAfter(challenge.userId, ip);
    if (wait > 0) {
      const error = t('Too many wrong codes. Try again in {seconds} seconds.', { seconds: wait });
      const fields = { userId: challenge.userId };
      return answerThrottled(
        ctx.logger,
        req,
        res,
        { event: 'mfa.throttled', fields, wait, error },
        (status, message) => step.page(req, res, challenge, status, message),
      );
    }
    const verified = await ctx.mfa.totp.verifySecondFactor(challenge.userId, code);
    if (!verified) {
      await ctx.mfa.throttle.recordFailure(challenge.userId, ip);
      auditPageEvent(ctx.logger, req, 'mfa.failure', { userId: challenge.userId, method: 'otp' });
      return step.page(req, res, challenge, 400, t('That code is not valid. Try again.'));
    }
    if (verified.recoveryCode)
      auditPageEvent(ctx.logger, req, 'mfa.recovery_code_used', {
        userId: challenge.userId,
        recoveryCodesLeft: (await ctx.mfa.totp.status(challenge.userId)).recoveryCodesLeft,
      });
    return step.complete(req, res, challenge, [verified.method], { method: 'otp' });
  });

  if (ctx.passkeys) router.use(secondFactorPasskeyRoute(ctx, ctx.passkeys, step));
  return router;
}
