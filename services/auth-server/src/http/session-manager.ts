import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Authentication } from '../domain/sessions/authentication-methods';
import type { SessionsRepo, SessionSummary } from '../domain/sessions/session';
import { describeDevice } from '../domain/sessions/describe-device';
import { pageCookieName, pageCookieOptions, readCookie } from './session-cookie';
import { isSameMac, keyedHash, type PageKeys } from './session-keys';

/** Named through pageCookieName: `__Host-auth_session` on an https issuer. */
export const SESSION_COOKIE = 'auth_session';
/** How long after a login its /authorize continuation counts as "just signed in" (a bookmarked
 *  continuation must not skip prompt=login or max_age later). */
export const LOGIN_MARK_MAX_AGE_SECONDS = 600;
/** The account page lists at most this many sessions (a bound on the page, not on signing in). */
export const MAX_LISTED_SESSIONS = 50;

export interface PageSession {
  /** The raw id from the cookie; only its keyed hash is stored. */
  sessionId: string;
  /** The OIDC `sid` (Back-Channel Logout §2.1): random, stable for the session, not the cookie value. */
  sid: string;
  userId: string;
  username: string;
  authTime: Date;
  expiresAt: Date;
  /** How the user signed in: amr and acr (domain/sessions/authentication-methods.ts). */
  authentication: Authentication;
}

export interface SessionManager {
  current(req: Request): Promise<PageSession | null>;
  /** Signs the user in with a new session id (never reusing one: no session fixation), recording how
   *  (`authenticationOf` of the methods used). */
  start(
    req: Request,
    res: Response,
    user: { userId: string; username: string },
    authentication: Authentication,
  ): Promise<PageSession>;
  /** Raises this browser's session after a step-up (a second factor): a new session id (no fixation across
   *  privilege levels), the same sid and auth_time. Null when the session is gone. */
  stepUp(req: Request, res: Response, authentication: Authentication): Promise<PageSession | null>;
  /** The keyed hash of this browser's session id (binds a step-up challenge to it); null without one. */
  sessionHashOf(req: Request): Buffer | null;
  /** Ends this browser's session (row and cookie); returns whose it was, if any. */
  end(req: Request, res: Response): Promise<{ userId: string; sid: string } | null>;
  /** Ends every session of the user, this browser's cookie too; returns the sids ended. */
  endAll(req: Request, res: Response, userId: string): Promise<string[]>;
  /** The user's live sessions for the account page (at most MAX_LISTED_SESSIONS, most recent first). */
  listForUser(userId: string): Promise<SessionSummary[]>;
  /** Ends another session of the user by its sid; false when none such. */
  endOne(userId: string, sid: string): Promise<boolean>;
  /** Ends every session of the user but this one (password change); returns the sids ended. */
  endOthers(session: PageSession): Promise<string[]>;
  /** A MAC of the session id, carried on the /authorize continuation right after login. */
  loginMark(session: PageSession): string;
  /** The mark of this session, presented within LOGIN_MARK_MAX_AGE_SECONDS of the login. */
  isLoginMark(session: PageSession, mark: string | undefined): boolean;
}

export interface SessionManagerOptions {
  repo: SessionsRepo;
  keys: PageKeys;
  issuer: string;
  ttlSeconds: number;
  clock: () => Date;
}

/** Sessions are opaque 256-bit ids in an HttpOnly cookie, looked up by keyed hash in Postgres. */
export function createSessionManager(options: SessionManagerOptions): SessionManager {
  const { repo, keys, issuer, ttlSeconds, clock } = options;
  const cache = new WeakMap<Request, Promise<PageSession | null>>();
  const hash = (sessionId: string) => keyedHash(keys.sessionHash, sessionId);
  const cookie = pageCookieName(SESSION_COOKIE, issuer);

  async function load(req: Request): Promise<PageSession | null> {
    const sessionId = readCookie(req, cookie);
    if (!sessionId) return null;
    const stored = await repo.findSession(hash(sessionId), clock());
    if (!stored) return null;
    // The account page's "last seen" (written at most every few minutes, sessions.repo.ts).
    await repo.touchSession(hash(sessionId), clock());
    return { sessionId, ...stored };
  }

  return {
    current(req) {
      let found = cache.get(req);
      if (!found) {
        found = load(req);
        cache.set(req, found);
      }
      return found;
    },
    async start(req, res, user, authentication) {
      const previous = readCookie(req, cookie);
      if (previous) await repo.deleteSession(hash(previous));
      const now = clock();
      const session: PageSession = {
        sessionId: randomBytes(32).toString('base64url'),
        sid: randomBytes(16).toString('base64url'),
        userId: user.userId,
        username: user.username,
        authTime: now,
        expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
        authentication,
      };
      await repo.saveSession({
        sessionHash: hash(session.sessionId),
        ...session,
        device: describeDevice(req.headers['user-agent']),
      });
      // Housekeeping on the login path keeps the table bounded without a separate job.
      await repo.deleteExpiredSessions(now, 500);
      res.cookie(cookie, session.sessionId, pageCookieOptions(req, issuer, ttlSeconds));
      cache.set(req, Promise.resolve(session));
      return session;
    },
    async stepUp(req, res, authentication) {
      const current = await this.current(req);
      if (!current) return null;
      const raised: PageSession = {
        ...current,
        sessionId: randomBytes(32).toString('base64url'),
        authentication,
      };
      if (!(await repo.raiseSession(hash(current.sessionId), hash(raised.sessionId), authentication)))
        return null;
      const remaining = Math.max(1, Math.floor((raised.expiresAt.getTime() - clock().getTime()) / 1000));
      res.cookie(cookie, raised.sessionId, pageCookieOptions(req, issuer, remaining));
      cache.set(req, Promise.resolve(raised));
      return raised;
    },
    sessionHashOf(req) {
      const sessionId = readCookie(req, cookie);
      return sessionId ? hash(sessionId) : null;
    },
    async end(req, res) {
      const sessionId = readCookie(req, cookie);
      const ended = sessionId ? await repo.deleteSession(hash(sessionId)) : null;
      res.clearCookie(cookie, pageCookieOptions(req, issuer));
      cache.set(req, Promise.resolve(null));
      return ended;
    },
    async endAll(req, res, userId) {
      const sids = await repo.deleteUserSessions(userId);
      res.clearCookie(cookie, pageCookieOptions(req, issuer));
      cache.set(req, Promise.resolve(null));
      return sids;
    },
    listForUser(userId) {
      return repo.listUserSessions(userId, clock(), MAX_LISTED_SESSIONS);
    },
    endOne(userId, sid) {
      return repo.deleteUserSession(userId, sid);
    },
    endOthers(session) {
      return repo.deleteOtherUserSessions(session.userId, session.sid);
    },
    loginMark(session) {
      return keyedHash(keys.loginMark, session.sessionId).toString('base64url');
    },
    isLoginMark(session, mark) {
      const fresh = clock().getTime() - session.authTime.getTime() <= LOGIN_MARK_MAX_AGE_SECONDS * 1000;
      return fresh && isSameMac(keyedHash(keys.loginMark, session.sessionId), mark);
    },
  };
}
