import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { PageError } from './page-error';
import { pageCookieName, pageCookieOptions, readCookie } from './session-cookie';
import { SESSION_COOKIE } from './session-manager';
import { isSameMac, keyedHash } from './session-keys';

/** Named through pageCookieName: `__Host-auth_csrf` on an https issuer. */
export const CSRF_COOKIE = 'auth_csrf';
export const CSRF_FIELD = 'csrf_token';

export interface Csrf {
  /** The token for this browser's forms; sets the pre-session cookie when it has none. */
  token(req: Request, res: Response): string;
  /** Rejects a POST whose csrf_token is not the MAC of this browser's cookie and session (403 page). */
  require(): RequestHandler;
}

/**
 * Signed double submit bound to the session (OWASP CSRF cheat sheet, "signed double-submit cookie" with the
 * session id in the MAC): a random pre-session cookie, HttpOnly, and in each form the MAC of it and of the
 * session cookie under a server key. A cross-site attacker can neither read the cookies nor compute the
 * MAC; and a token minted in one session (say the attacker's own, with the pre-session cookie planted in a
 * victim's browser) is refused in another. Before sign-in the pre-session cookie alone is bound (the
 * login form); the session id is bound from the first page after it.
 */
export function createCsrf(options: {
  key: Buffer;
  issuer: string;
  /** The session cookie the token is bound to (the admin console binds its own); default the pages'. */
  sessionCookie?: string;
}): Csrf {
  const issued = new WeakMap<Request, string>();
  const csrfCookie = pageCookieName(CSRF_COOKIE, options.issuer);
  const sessionCookie = options.sessionCookie ?? pageCookieName(SESSION_COOKIE, options.issuer);
  // JSON keeps the two parts apart; an absent session is bound as null.
  const macOf = (req: Request, seed: string) =>
    keyedHash(options.key, JSON.stringify([seed, readCookie(req, sessionCookie) ?? null]));
  return {
    token(req, res) {
      let seed = readCookie(req, csrfCookie) ?? issued.get(req);
      if (!seed) {
        seed = randomBytes(32).toString('base64url');
        issued.set(req, seed);
        res.cookie(csrfCookie, seed, pageCookieOptions(req, options.issuer));
      }
      return macOf(req, seed).toString('base64url');
    },
    require() {
      return (req, _res, next) => {
        const seed = readCookie(req, csrfCookie);
        const body = req.body as Record<string, unknown> | undefined;
        const presented = body?.[CSRF_FIELD];
        if (!seed || typeof presented !== 'string' || !isSameMac(macOf(req, seed), presented)) {
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
