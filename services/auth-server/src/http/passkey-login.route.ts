import express, { Router } from 'express';
import {
  finishPasskeyAssertion,
  type PasskeyAssertionResult,
} from '../domain/passkeys/finish-passkey-assertion';
import { parseAuthenticationResponse } from '../domain/passkeys/parse-passkey-response';
import { passkeyAuthentication } from '../domain/passkeys/passkey-authentication';
import { startPasskeyAssertion } from '../domain/passkeys/start-passkey-assertion';
import { answerThrottled } from './answer-throttled';
import { parseReturnTo } from './authorize-params';
import { continuation } from './login.route';
import { auditPageEvent, clientIp } from './page-audit';
import type { PageContext } from './page-context';
import { formField } from './page-form';
import { passkeyBinding } from './passkey-binding';
import type { PasskeyPageContext } from './passkey-page-context';
import { renderLogin } from './views/login.view';

/** The options request carries only the CSRF token; the answer carries the credential (a few KB). */
export const PASSKEY_OPTIONS_BODY_LIMIT = '2kb';
export const PASSKEY_FORM_BODY_LIMIT = '32kb';

/**
 * "Sign in with a passkey" on the login page, instead of the password (WebAuthn L3 §7.2, a discoverable
 * credential, usernameless): POST /login/passkey/options answers request options (JSON) and keeps the
 * challenge for this browser; POST /login/passkey takes the credential from the same form as the password
 * and ends the same way: a new session, then 303 to return_to (RFC 9700 §4.12). Failed assertions back
 * off per credential and address like failed passwords, asked before anything is verified.
 */
export function passkeyLoginRoute(ctx: PageContext, passkeys: PasskeyPageContext): Router {
  const router = Router();
  const json = express.json({ limit: PASSKEY_OPTIONS_BODY_LIMIT });
  const form = express.urlencoded({ extended: false, limit: PASSKEY_FORM_BODY_LIMIT });

  router.post('/login/passkey/options', json, ctx.csrf.require(), async (req, res) => {
    const binding = passkeyBinding(passkeys.keys, ctx.config.ISSUER, req);
    if (!binding) return res.status(400).json({ error: 'invalid_request' });
    const options = await startPasskeyAssertion(passkeys.deps, binding, { userVerification: 'required' });
    res.status(200).json(options);
  });

  router.post('/login/passkey', form, ctx.csrf.require(), async (req, res) => {
    const returnTo = parseReturnTo(formField(req, 'return_to'));
    const again = (status: number, error: string) =>
      res
        .status(status)
        .type('html')
        .send(renderLogin({ chrome: ctx.chrome(req), csrfToken: ctx.csrf.token(req, res), returnTo, error }));
    const refused = () =>
      again(
        400,
        ctx.chrome(req).i18n.t('Your passkey could not be used. Try again or sign in with your password.'),
      );

    const ip = clientIp(req);
    const response = parseAuthenticationResponse(formField(req, 'credential'));
    const credentialId = response?.id ?? '';
    const wait = await passkeys.throttle.retryAfter(credentialId, ip);
    if (wait > 0) {
      const error = ctx
        .chrome(req)
        .i18n.t('Too many failed sign-in attempts. Try again in {seconds} seconds.', { seconds: wait });
      const fields = { credentialId };
      return answerThrottled(
        ctx.logger,
        req,
        res,
        { event: 'passkey.login.throttled', fields, wait, error },
        again,
      );
    }
    const binding = passkeyBinding(passkeys.keys, ctx.config.ISSUER, req);
    const result: PasskeyAssertionResult =
      response && binding
        ? await finishPasskeyAssertion(passkeys.deps, binding, response, { requireUserVerification: true })
        : { ok: false, reason: 'invalid', credentialId };
    if (!result.ok) {
      await passkeys.throttle.recordFailure(credentialId, ip);
      auditPageEvent(
        ctx.logger,
        req,
        result.reason === 'cloned' ? 'passkey.sign_count_regression' : 'passkey.login.failure',
        { reason: result.reason, credentialId, userId: result.userId },
      );
      return refused();
    }
    await passkeys.throttle.recordSuccess(credentialId, ip);
    const authentication = passkeyAuthentication(result);
    const session = await ctx.sessions.start(req, res, result.user, authentication);
    auditPageEvent(ctx.logger, req, 'passkey.login.success', {
      userId: result.user.userId,
      username: result.user.username,
      credentialId,
      amr: authentication.amr,
    });
    res.redirect(303, continuation(returnTo, ctx.sessions.loginMark(session)));
  });
  return router;
}
