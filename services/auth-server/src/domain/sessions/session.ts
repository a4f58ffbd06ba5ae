import type { Authentication } from './authentication-methods';

export interface StoredSession {
  /** OIDC Back-Channel Logout §2.1 session id: random, not the cookie value nor derived from it. */
  sid: string;
  userId: string;
  username: string;
  authTime: Date;
  expiresAt: Date;
  /** How the user signed in (RFC 8176 amr, and its acr); a step-up replaces it. */
  authentication: Authentication;
}

/**
 * Browser sessions in Postgres so any instance can serve any request. Only a keyed hash of the session
 * id is stored: a leaked table does not let anyone sign in (see http/session-manager.ts).
 */
export interface SessionsRepo {
  saveSession(session: {
    sessionHash: Buffer;
    sid: string;
    userId: string;
    authTime: Date;
    expiresAt: Date;
    authentication: Authentication;
    /** A coarse description of the browser (describe-device.ts), for the account page's sessions list. */
    device?: string | null;
  }): Promise<void>;
  /** The live session of an enabled user, or null when unknown, expired or the user is disabled. */
  findSession(sessionHash: Buffer, now: Date): Promise<StoredSession | null>;
  /** A step-up: the session gets a new id (hash) and the raised amr/acr; sid, auth_time and expiry stay.
   *  False when the session is gone. */
  raiseSession(sessionHash: Buffer, newHash: Buffer, authentication: Authentication): Promise<boolean>;
  /** Deletes the session; returns whose it was (null: none). */
  deleteSession(sessionHash: Buffer): Promise<{ userId: string; sid: string } | null>;
  /** Deletes every session of the user ("sign out everywhere"); returns their sids. */
  deleteUserSessions(userId: string): Promise<string[]>;
  /** Records that the session was used at `now`, at most once per LAST_SEEN_RESOLUTION_SECONDS. */
  touchSession(sessionHash: Buffer, now: Date): Promise<void>;
  /** The user's live sessions, most recently used first, at most `limit` (the account page's list). */
  listUserSessions(userId: string, now: Date, limit: number): Promise<SessionSummary[]>;
  /** Ends one session of the user by its sid ("end this session"); false when it was not theirs or gone. */
  deleteUserSession(userId: string, sid: string): Promise<boolean>;
  /** Ends every session of the user but `keepSid` (after a password change); returns the sids ended. */
  deleteOtherUserSessions(userId: string, keepSid: string): Promise<string[]>;
  /** Removes up to `limit` expired rows (index sessions_expiry); returns how many. */
  deleteExpiredSessions(now: Date, limit: number): Promise<number>;
}

/** "Last seen" is kept to this resolution: a page view writes the row at most this often. */
export const LAST_SEEN_RESOLUTION_SECONDS = 300;

/** One line of the account page's sessions list: never the cookie or its hash, only the public sid. */
export interface SessionSummary {
  sid: string;
  authTime: Date;
  /** The last use recorded (to LAST_SEEN_RESOLUTION_SECONDS), else the sign-in. */
  lastSeenAt: Date;
  device: string | null;
}
