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
}

export function derivePasskeyKeys(secret: string): PasskeyKeys {
  const derive = (label: string) =>
    createHmac('sha256', secret).update(`auth-server/pages/${label}`).digest();
  return { binding: derive('passkey-challenge-binding'), userHandle: derive('passkey-user-handle') };
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
