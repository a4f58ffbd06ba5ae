import { createHmac, randomBytes } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import type { Acr, AuthenticationMethod } from '../domain/sessions/authentication-methods';
import type { MfaChallenge, MfaChallengePurpose, MfaChallengesRepo } from '../domain/sessions/mfa-challenge';
import { pageCookieName, pageCookieOptions, readCookie } from './session-cookie';
import { keyedHash } from './session-keys';

/** Named through pageCookieName: `__Host-auth_mfa` on an https issuer. */
export const MFA_COOKIE = 'auth_mfa';
/** How long the second-factor page waits after the password (an authenticator shows a code in seconds). */
export const MFA_CHALLENGE_TTL_SECONDS = 300;

export interface MfaChallengeManager {
  /** Records that this browser passed the first step(s) and now owes a second factor. */
  start(
    req: Request,
    res: Response,
    challenge: {
      userId: string;
      amr: AuthenticationMethod[];
      sessionHash: Buffer | null;
      returnTo: string;
      /** A step-up for acr_values: the level to reach. */
      wantedAcr?: Acr;
    },
  ): Promise<void>;
  /** This browser's live challenge, or null. */
  current(req: Request): Promise<MfaChallenge | null>;
  /**
   * The keyed hash that names this browser's challenge row (from its cookie), or null: what a passkey
   * challenge for this second step is bound to (second-factor-passkey.route.ts).
   */
  rowKey(req: Request): Buffer | null;
  /** Uses the challenge up (row and cookie); false when another request did first. */
  finish(req: Request, res: Response): Promise<boolean>;
}

/**
 * The half-signed-in state between the password and the second factor lives server side (Postgres, so any
 * instance serves the next step), keyed by the keyed hash of a random 256-bit value in an HttpOnly cookie:
 * bound to the browser that passed the password, minutes long, used once. It is not a session: nothing but
 * the second-factor page accepts it.
 */
export function createMfaChallengeManager(options: {
  repo: MfaChallengesRepo;
  secret: string;
  issuer: string;
  clock: () => Date;
  /**
   * The admin console's own challenges (console-second-factor.route.ts): a purpose the repo matches, a MAC
   * key and a cookie of their own, so one side's challenge never finishes the other side's sign-in.
   */
  console?: { cookieName: string; cookieOptions: (req: Request, maxAgeSeconds?: number) => CookieOptions };
}): MfaChallengeManager {
  const { repo, issuer, clock } = options;
  const purpose: MfaChallengePurpose = options.console ? 'console' : 'pages';
  const label = options.console
    ? 'auth-server/admin-console/mfa-challenge'
    : 'auth-server/pages/mfa-challenge';
  const key = createHmac('sha256', options.secret).update(label).digest();
  const cookie = options.console?.cookieName ?? pageCookieName(MFA_COOKIE, issuer);
  const cookieOptions = (req: Request, maxAgeSeconds?: number) =>
    options.console?.cookieOptions(req, maxAgeSeconds) ?? pageCookieOptions(req, issuer, maxAgeSeconds);
  const hashOf = (req: Request) => {
    const value = readCookie(req, cookie);
    return value ? keyedHash(key, value) : null;
  };
  return {
    async start(req, res, challenge) {
      const value = randomBytes(32).toString('base64url');
      const now = clock();
      await repo.save(
        keyedHash(key, value),
        {
          userId: challenge.userId,
          amr: challenge.amr,
          sessionHash: challenge.sessionHash,
          returnTo: challenge.returnTo,
          wantedAcr: challenge.wantedAcr ?? null,
          expiresAt: new Date(now.getTime() + MFA_CHALLENGE_TTL_SECONDS * 1000),
        },
        purpose,
      );
      // Housekeeping on the sign-in path keeps the table bounded without a separate job.
      await repo.deleteExpired(now, 500);
      res.cookie(cookie, value, cookieOptions(req, MFA_CHALLENGE_TTL_SECONDS));
    },
    async current(req) {
      const hash = hashOf(req);
      return hash ? repo.find(hash, clock(), purpose) : null;
    },
    rowKey: hashOf,
    async finish(req, res) {
      const hash = hashOf(req);
      res.clearCookie(cookie, cookieOptions(req));
      return hash ? repo.delete(hash) : false;
    },
  };
}
