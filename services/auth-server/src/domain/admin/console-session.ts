import type { AuthenticationMethod } from '../sessions/authentication-methods';

/** A console session as stored: the admin it belongs to, how they signed in, and its two expiries. */
export interface ConsoleSessionRecord {
  userId: string;
  username: string;
  /** RFC 8176 methods of the sign-in (migration 0021), as authenticationOf words them. */
  amr: AuthenticationMethod[];
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

/**
 * Console sessions (table admin_console_sessions, migration 0019), apart from the pages' sessions. Only a
 * keyed hash of the cookie value is stored. `find` answers only a live session (absolute and idle expiry)
 * of an enabled user who still holds the admin role, so disabling the user or revoking the role ends it.
 */
export interface ConsoleSessionsRepo {
  save(session: {
    sessionHash: Buffer;
    userId: string;
    amr: AuthenticationMethod[];
    now: Date;
    expiresAt: Date;
  }): Promise<void>;
  find(
    sessionHash: Buffer,
    now: Date,
    idleSeconds: number,
    role: string,
  ): Promise<ConsoleSessionRecord | null>;
  touch(sessionHash: Buffer, now: Date): Promise<void>;
  delete(sessionHash: Buffer): Promise<void>;
  /** Removes up to `limit` rows past either expiry; returns how many. */
  deleteExpired(now: Date, idleSeconds: number, limit: number): Promise<number>;
}
