import { authenticator } from 'otplib';
import type { RunningAuthServer } from '../../support/start-auth-server';
import { createUser } from '../../support/oauth-helpers';
import { inputValue, WebClient } from './web-client';

/** The RFC 6238 code of `secret` for the time step `steps` away from now (computed here, as an app would). */
export function totpCode(secret: string, steps = 0): string {
  return authenticator.clone({ epoch: Date.now() + steps * 30_000 }).generate(secret);
}

/** The base32 secret shown for manual entry on the account page (spaces are only for reading). */
export function shownSecret(html: string): string {
  const match = /id="totp-secret"\s*>([^<]*)</.exec(html);
  if (!match) throw new Error('no TOTP secret on the page');
  return match[1]!.replace(/\s/g, '');
}

/** Signs in with the password at /login (no authorization request); returns the answer. */
export async function signInAtLogin(browser: WebClient, username: string, password: string) {
  const html = await (await browser.get('/login')).text();
  return browser.post('/login', {
    csrf_token: inputValue(html, 'csrf_token'),
    return_to: '/account',
    username,
    password,
  });
}

/** From a signed-in browser: sets up TOTP on the account page; returns the secret, the recovery codes and the code that turned it on. */
export async function enrolTotp(browser: WebClient) {
  const start = await (await browser.get('/account/totp')).text();
  const started = await browser.post('/account/totp/start', { csrf_token: inputValue(start, 'csrf_token') });
  if (started.status !== 303) throw new Error(`start: ${started.status}`);
  const pending = await (await browser.get('/account/totp')).text();
  const secret = shownSecret(pending);
  const activationCode = totpCode(secret);
  const activated = await browser.post('/account/totp/activate', {
    csrf_token: inputValue(pending, 'csrf_token'),
    code: activationCode,
  });
  const html = await activated.text();
  if (activated.status !== 200) throw new Error(`activate: ${activated.status} ${html.slice(0, 200)}`);
  const recoveryCodes = [...html.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
  return { secret, recoveryCodes, activationCode };
}

/** Answers the second-factor page the browser was sent to. */
export async function submitSecondFactor(browser: WebClient, code: string): Promise<Response> {
  const html = await (await browser.get('/login/second-factor')).text();
  return browser.post('/login/second-factor', { csrf_token: inputValue(html, 'csrf_token'), code });
}

/** A new user (password 'correct horse battery') with TOTP on; its browser signed in with the password alone. */
export async function userWithTotp(server: RunningAuthServer) {
  const user = await createUser(server);
  const browser = new WebClient(server.url);
  const signedIn = await signInAtLogin(browser, user.username, 'correct horse battery');
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status}`);
  return { ...user, browser, ...(await enrolTotp(browser)) };
}
