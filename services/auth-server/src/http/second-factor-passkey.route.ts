import express, { Router } from 'express';
import {
  finishPasskeyAssertion,
  type PasskeyAssertionResult,
} from '../domain/passkeys/finish-passkey-assertion';
import { parseAuthenticationResponse } from '../domain/passkeys/parse-passkey-response';
import { passkeyMethod } from '../domain/passkeys/passkey-authentication';
import { startPasskeyAssertion } from '../domain/passkeys/start-passkey-assertion';
import { answerThrottled } from './answer-throttled';
import { auditPageEvent, clientIp } from './page-audit';
import type { PageContext } from './page-context';
import { formField } from './page-form';
import { secondFactorBinding } from './passkey-binding';
import { PASSKEY_FORM_BODY_LIMIT, PASSKEY_OPTIONS_BODY_LIMIT } from './passkey-login.route';
import type { PasskeyPageContext } from './passkey-page-context';
import { secondStepExpired, type SecondFactorStep } from './second-factor-step';

/**
 * "Use a passkey" on the second-factor page (WebAuthn L3 §7.2 with allowCredentials): POST
 * /login/second-factor/passkey/options answers request options listing only this user's passkeys that
 * reach the level asked (second-factor-choices.ts), user verification preferred (the password is the other
 * factor), the challenge bound to the MFA challenge row (secondFactorBinding: single use, expiring with the
 * row); POST /login/second-factor/passkey takes the credential and, verified, ends as a TOTP code does
 * (SecondFactorStep.complete): amr ['pwd', 'hwk' or 'swk', 'mfa'], acr `phrh`/`phr`. Both carry the CSRF
 * token. Failures (another user's or an unknown credential, a replayed or expired challenge, a bad
 * signature, a counter that did not grow) count in the second-factor throttle, asked first, never in the
 * password step's counters; a counter regression is audited as on the usernameless sign-in.
 */
export function secondFactorPasskeyRoute(
  ctx: PageContext,
  passkeys: PasskeyPageContext,
  step: SecondFactorStep,
): Router {
  const router = Router();
  const json = express.json({ limit: PASSKEY_OPTIONS_BODY_LIMIT });
  const form = express.urlencoded({ extended: false, limit: PASSKEY_FORM_BODY_LIMIT });

  router.post('/login/second-factor/passkey/options', json, ctx.csrf.require(), async (req, res) => {
    const challenge = await step.challenge(req);
    const rowKey = ctx.mfa.challenges.rowKey(req);
    if (!challenge || !rowKey) return res.status(400).json({ error: 'invalid_request' });
    const { passkeys: allowed } = await ctx.mfa.choices(challenge);
    if (allowed.length === 0) return res.status(400).json({ error: 'invalid_request' });
    const options = await startPasskeyAssertion(passkeys.deps, secondFactorBinding(passkeys.keys, rowKey), {
      userId: challenge.userId,
      userVerification: 'preferred',
      credentials: allowed,
      notAfter: challenge.expiresAt,
    });
    res.status(200).json(options);
  });

  router.post('/login/second-factor/passkey', form, ctx.csrf.require(), async (req, res) => {
    const challenge = await step.challenge(req);
    const rowKey = ctx.mfa.challenges.rowKey(req);
    if (!challenge || !rowKey) throw secondStepExpired();
    const { t } = ctx.chrome(req).i18n;
    const { userId } = challenge;
    const ip = clientIp(req);
    const wait = await ctx.mfa.throttle.retryAfter(userId, ip);
    if (wait > 0) {
      const error = t('Too many failed sign-in attempts. Try again in {seconds} seconds.', { seconds: wait });
      return answerThrottled(
        ctx.logger,
        req,
        res,
        { event: 'mfa.throttled', fields: { userId }, wait, error },
        (status, message) => step.page(req, res, challenge, status, message),
      );
    }
    const response = parseAuthenticationResponse(formField(req, 'credential'));
    const credentialId = response?.id ?? '';
    // Only a passkey this page offered: the user's own, reaching the level (allowCredentials binds the
    // browser, not a hostile client). Checked before the challenge is taken: nothing else is touched.
    const { passkeys: allowed } = await ctx.mfa.choices(challenge);
    const presented = response ? Buffer.from(response.id, 'base64url') : undefined;
    const offered = presented && allowed.some((passkey) => passkey.credentialId.equals(presented));
    const result: PasskeyAssertionResult =
      response && offered
        ? await finishPasskeyAssertion(passkeys.deps, secondFactorBinding(passkeys.keys, rowKey), response, {
            userId,
            requireUserVerification: false,
          })
        : { ok: false, reason: response ? 'unknown_credential' : 'invalid', credentialId };
    if (!result.ok) {
      await ctx.mfa.throttle.recordFailure(userId, ip);
      auditPageEvent(
        ctx.logger,
        req,
        result.reason === 'cloned' ? 'passkey.sign_count_regression' : 'mfa.failure',
        { userId, method: 'passkey', reason: result.reason, credentialId },
      );
      return step.page(req, res, challenge, 400, t('Your passkey could not be used. Try again.'));
    }
    return step.complete(req, res, challenge, [passkeyMethod(result)], { method: 'passkey', credentialId });
  });
  return router;
}
