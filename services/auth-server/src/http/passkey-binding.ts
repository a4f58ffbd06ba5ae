import { createHmac } from 'node:crypto';
import type { Request } from 'express';
import { CSRF_COOKIE } from './csrf';
import { pageCookieName, readCookie } from './session-cookie';
import { SESSION_COOKIE } from './session-manager';

export interface PasskeyKeys {
  /** Binds a pending challenge to the browser (its cookies). */
  binding: Buffer;
  /** User handles (domain/passkeys/passkey-deps.ts userHandleOf). */
  userHandle: Buffer;
  /** Binds a second factor's challenge to its MFA challenge row (secondFactorBinding). */
  secondFactor: Buffer;
}

export function derivePasskeyKeys(secret: string): PasskeyKeys {
  const derive = (label: string) =>
    createHmac('sha256', secret).update(`auth-server/pages/${label}`).digest();
  return {
    binding: derive('passkey-challenge-binding'),
    userHandle: derive('passkey-user-handle'),
    secondFactor: derive('passkey-second-factor-binding'),
  };
}

/**
 * The browser a challenge belongs to: a keyed hash of its pre-session (CSRF) cookie and its session cookie,
 * so a challenge fetched in one browser, or in one session, is worth nothing in another (the ceremony is
 * bound like the CSRF token, csrf.ts). undefined: the browser has no pre-session cookie (the form it
 * came from set one, so it is not a page's form).
 */
export function passkeyBinding(keys: PasskeyKeys, issuer: string, req: Request): Buffer | undefined {
  const seed = readCookie(req, pageCookieName(CSRF_COOKIE, issuer));
  if (!seed) return undefined;
  const session = readCookie(req, pageCookieName(SESSION_COOKIE, issuer)) ?? null;
  return createHmac('sha256', keys.binding)
    .update(JSON.stringify([seed, session]))
    .digest();
}

/**
 * The binding of a passkey challenge asked for on the second-factor page: a keyed hash of the MFA
 * challenge row's own key (the keyed hash of this browser's `auth_mfa` cookie, mfa-challenge-manager.ts),
 * under a key of its own, so it belongs to that row alone: another browser, another sign-in or the
 * usernameless sign-in's challenges can never answer it, and a new sign-in (a new row) leaves it unusable.
 */
export function secondFactorBinding(keys: PasskeyKeys, mfaRowKey: Buffer): Buffer {
  return createHmac('sha256', keys.secondFactor).update(mfaRowKey).digest();
}
