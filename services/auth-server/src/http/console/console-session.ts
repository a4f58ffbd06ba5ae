import { createHmac, randomBytes } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import { ADMIN_ROLE } from '../../domain/admin/admin-actor';
import type { ConsoleSessionsRepo } from '../../domain/admin/console-session';
import type { AuthenticationMethod } from '../../domain/sessions/authentication-methods';
import { readCookie } from '../session-cookie';
import { keyedHash } from '../session-keys';
import { CONSOLE_HOME } from './console-paths';

export interface ConsoleSession {
  userId: string;
  username: string;
  /** How the admin signed in (RFC 8176): ['pwd'], ['pwd', 'otp', 'mfa'], a passkey's. */
  amr: AuthenticationMethod[];
}

export interface ConsoleSessionManager {
  /** The cookie's name: `__Secure-auth_admin` on an https issuer (Path=/admin rules out `__Host-`). */
  readonly cookieName: string;
  current(req: Request): Promise<ConsoleSession | null>;
  start(req: Request, res: Response, session: ConsoleSession): Promise<void>;
  end(req: Request, res: Response): Promise<void>;
}

/** Keys of the console, apart from the pages' (session-keys.ts): a MAC of one is never one of the other. */
export function deriveConsoleKeys(secret: string) {
  const derive = (label: string) =>
    createHmac('sha256', secret).update(`auth-server/admin-console/${label}`).digest();
  return {
    sessionHash: derive('session-hash'),
    csrf: derive('csrf'),
    passkeyBinding: derive('passkey-binding'),
  };
}

/** The console's cookies' attributes (the session's and the second-factor challenge's): see below. */
export function consoleCookieOptions(issuer: string) {
  const https = issuer.startsWith('https:');
  return (req: Request, maxAgeSeconds?: number): CookieOptions => ({
    httpOnly: true,
    sameSite: 'strict',
    secure: https || req.secure,
    path: CONSOLE_HOME,
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds * 1000 }),
  });
}

/** A console cookie's name: `__Secure-` on an https issuer (Path=/admin rules out `__Host-`). */
export function consoleCookieName(name: string, issuer: string): string {
  return issuer.startsWith('https:') ? `__Secure-${name}` : name;
}

/**
 * The console's own session: an opaque 256-bit id in its own cookie, stored as a keyed hash (as the pages'
 * sessions). The cookie is HttpOnly, SameSite=Strict (never sent on a cross-site request, not even a
 * top-level GET: the console is never the target of a link from elsewhere), Path=/admin (the pages never
 * see it), Secure on an https issuer. Idle and absolute lifetimes are both shorter than a page session's.
 */
export function createConsoleSessionManager(options: {
  repo: ConsoleSessionsRepo;
  secret: string;
  issuer: string;
  idleSeconds: number;
  ttlSeconds: number;
  /** ADMIN_CONSOLE_REQUIRE_MFA: a session without 'mfa' in its amr (one from before the switch) is none. */
  requireMfa: boolean;
  clock: () => Date;
}): ConsoleSessionManager {
  const { repo, issuer, idleSeconds, ttlSeconds, clock } = options;
  const keys = deriveConsoleKeys(options.secret);
  const cookieName = consoleCookieName('auth_admin', issuer);
  const hash = (id: string) => keyedHash(keys.sessionHash, id);
  const cache = new WeakMap<Request, Promise<ConsoleSession | null>>();
  const cookieOptions = consoleCookieOptions(issuer);

  async function load(req: Request): Promise<ConsoleSession | null> {
    const id = readCookie(req, cookieName);
    if (!id) return null;
    const now = clock();
    const found = await repo.find(hash(id), now, idleSeconds, ADMIN_ROLE);
    if (!found || (options.requireMfa && !found.amr.includes('mfa'))) return null;
    // Sliding idle expiry; written at most every 15 s so a page with several requests costs one UPDATE.
    if (now.getTime() - found.lastSeenAt.getTime() > 15_000) await repo.touch(hash(id), now);
    return { userId: found.userId, username: found.username, amr: found.amr };
  }

  return {
    cookieName,
    current(req) {
      let found = cache.get(req);
      if (!found) {
        found = load(req);
        cache.set(req, found);
      }
      return found;
    },
    async start(req, res, session) {
      const previous = readCookie(req, cookieName);
      if (previous) await repo.delete(hash(previous));
      const now = clock();
      const id = randomBytes(32).toString('base64url');
      await repo.save({
        sessionHash: hash(id),
        userId: session.userId,
        amr: session.amr,
        now,
        expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
      });
      await repo.deleteExpired(now, idleSeconds, 500);
      res.cookie(cookieName, id, cookieOptions(req, ttlSeconds));
      cache.set(req, Promise.resolve(session));
    },
    async end(req, res) {
      const id = readCookie(req, cookieName);
      if (id) await repo.delete(hash(id));
      res.clearCookie(cookieName, cookieOptions(req));
      cache.set(req, Promise.resolve(null));
    },
  };
}
