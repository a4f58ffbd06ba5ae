import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { PageError } from './page-error';
import { pageCookieOptions, readCookie } from './session-cookie';
import { isSameMac, keyedHash } from './session-keys';

export const CSRF_COOKIE = 'auth_csrf';
export const CSRF_FIELD = 'csrf_token';

export interface Csrf {
  /** The token for this browser's forms; sets the pre-session cookie when it has none. */
  token(req: Request, res: Response): string;
  /** Rejects a POST whose csrf_token is not the MAC of the browser's cookie (403 page). */
  require(): RequestHandler;
}

/**
 * Double submit with an HMAC (OWASP CSRF cheat sheet, "signed double-submit cookie"): a random
 * pre-session cookie, HttpOnly, and in each form the MAC of it under a server key. A cross-site attacker
 * can neither read the cookie nor compute the MAC; one mechanism covers the login form (before any session)
 * and every form after it.
 */
export function createCsrf(options: { key: Buffer; issuer: string }): Csrf {
  const issued = new WeakMap<Request, string>();
  const macOf = (seed: string) => keyedHash(options.key, seed);
  return {
    token(req, res) {
      let seed = readCookie(req, CSRF_COOKIE) ?? issued.get(req);
      if (!seed) {
        seed = randomBytes(32).toString('base64url');
        issued.set(req, seed);
        res.cookie(CSRF_COOKIE, seed, pageCookieOptions(req, options.issuer));
      }
      return macOf(seed).toString('base64url');
    },
    require() {
      return (req, _res, next) => {
        const seed = readCookie(req, CSRF_COOKIE);
        const body = req.body as Record<string, unknown> | undefined;
        const presented = body?.[CSRF_FIELD];
        if (!seed || typeof presented !== 'string' || !isSameMac(macOf(seed), presented)) {
          throw new PageError(
            403,
            'Form expired',
            'This form could not be verified. Go back, reload the page and try again.',
          );
        }
        next();
      };
    },
  };
}
