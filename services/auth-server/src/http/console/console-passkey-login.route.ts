import { createHmac } from 'node:crypto';
import express, { Router, type Request } from 'express';
import {
  finishPasskeyAssertion,
  type PasskeyAssertionResult,
} from '../../domain/passkeys/finish-passkey-assertion';
import { parseAuthenticationResponse } from '../../domain/passkeys/parse-passkey-response';
import { passkeyAuthentication } from '../../domain/passkeys/passkey-authentication';
import { startPasskeyAssertion } from '../../domain/passkeys/start-passkey-assertion';
import { answerThrottled } from '../answer-throttled';
import { CSRF_COOKIE } from '../csrf';
import { auditPageEvent, clientIp } from '../page-audit';
import { formField } from '../page-form';
import type { PasskeyPageContext } from '../passkey-page-context';
import { PASSKEY_FORM_BODY_LIMIT, PASSKEY_OPTIONS_BODY_LIMIT } from '../passkey-login.route';
import { pageCookieName, readCookie } from '../session-cookie';
import type { ConsoleContext } from './console-context';
import { renderConsoleLogin } from './console-login.view';
import { CONSOLE_LOGIN } from './console-paths';
import { deriveConsoleKeys } from './console-session';
import { finishConsoleSignIn, isConsoleAdmin } from './console-sign-in';

const PASSKEY_PATH = `${CONSOLE_LOGIN}/passkey`;

/**
 * The browser a console challenge belongs to: as passkey-binding.ts does for the pages (the pre-session
 * CSRF cookie and the session cookie), but with the console's cookie and a console key, so an assertion
 * fetched for /login cannot be finished here, nor the reverse.
 */
function consoleBinding(cc: ConsoleContext, req: Request): Buffer | undefined {
  const issuer = cc.page.config.ISSUER;
  const seed = readCookie(req, pageCookieName(CSRF_COOKIE, issuer));
  if (!seed) return undefined;
  const session = readCookie(req, cc.sessions.cookieName) ?? null;
  return createHmac('sha256', deriveConsoleKeys(cc.page.config.TOKEN_SIGNING_SECRET).passkeyBinding)
    .update(JSON.stringify([seed, session]))
    .digest();
}

/**
 * "Sign in with a passkey" at the console (WebAuthn L3 §7.2), the pages' usernameless ceremony
 * (passkey-login.route.ts) with the console's CSRF, binding and session: user verification required, so a
 * passkey counts as multi-factor (passkey-authentication.ts). The passkey's owner must be an enabled admin;
 * anyone else gets the same refusal as a failed assertion. Failures back off per credential and address.
 */
export function consolePasskeyLoginRoute(cc: ConsoleContext, passkeys: PasskeyPageContext): Router {
  const { page } = cc;
  const router = Router();
  const json = express.json({ limit: PASSKEY_OPTIONS_BODY_LIMIT });
  const form = express.urlencoded({ extended: false, limit: PASSKEY_FORM_BODY_LIMIT });
  const checkCsrf = cc.csrf.require();

  router.post(`${PASSKEY_PATH}/options`, json, checkCsrf, async (req, res) => {
    const binding = consoleBinding(cc, req);
    if (!binding) return res.status(400).json({ error: 'invalid_request' });
    res
      .status(200)
      .json(await startPasskeyAssertion(passkeys.deps, binding, { userVerification: 'required' }));
  });

  router.post(PASSKEY_PATH, form, checkCsrf, async (req, res) => {
    const { t } = page.chrome(req).i18n;
    const again = (status: number, error: string) =>
      res
        .status(status)
        .type('html')
        .send(renderConsoleLogin({ chrome: page.chrome(req), csrfToken: cc.csrf.token(req, res), error }));
    const ip = clientIp(req);
    const response = parseAuthenticationResponse(formField(req, 'credential'));
    const credentialId = response?.id ?? '';
    const wait = await passkeys.throttle.retryAfter(credentialId, ip);
    if (wait > 0) {
      const error = t('Too many failed sign-in attempts. Try again in {seconds} seconds.', { seconds: wait });
      const fields = { credentialId, console: 'admin' };
      return answerThrottled(
        page.logger,
        req,
        res,
        { event: 'passkey.login.throttled', fields, wait, error },
        again,
      );
    }
    const binding = consoleBinding(cc, req);
    const result: PasskeyAssertionResult =
      response && binding
        ? await finishPasskeyAssertion(passkeys.deps, binding, response, { requireUserVerification: true })
        : { ok: false, reason: 'invalid', credentialId };
    const admin = result.ok && (await isConsoleAdmin(cc, result.user.userId));
    if (!result.ok || !admin) {
      await passkeys.throttle.recordFailure(credentialId, ip);
      auditPageEvent(
        page.logger,
        req,
        !result.ok && result.reason === 'cloned' ? 'passkey.sign_count_regression' : 'passkey.login.failure',
        {
          reason: result.ok ? 'not_admin' : result.reason,
          credentialId,
          userId: result.ok ? result.user.userId : result.userId,
          console: 'admin',
        },
      );
      return again(400, t('Your passkey could not be used. Try again or sign in with your password.'));
    }
    await passkeys.throttle.recordSuccess(credentialId, ip);
    await finishConsoleSignIn(cc, req, res, result.user, passkeyAuthentication(result).amr);
  });
  return router;
}
