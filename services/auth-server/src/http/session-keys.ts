import { createHmac, timingSafeEqual } from 'node:crypto';

/** Separate keys per purpose, derived from the server secret, so one MAC can never stand in for another. */
export interface PageKeys {
  /** Keyed hash of session ids as stored in Postgres. */
  sessionHash: Buffer;
  /** CSRF tokens: MAC of the pre-session cookie. */
  csrf: Buffer;
  /** Marks the /authorize continuation right after a login (see session-manager.ts). */
  loginMark: Buffer;
}

export function derivePageKeys(secret: string): PageKeys {
  const derive = (label: string) =>
    createHmac('sha256', secret).update(`auth-server/pages/${label}`).digest();
  return { sessionHash: derive('session-hash'), csrf: derive('csrf'), loginMark: derive('login-mark') };
}

export function keyedHash(key: Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value).digest();
}

/** Constant-time comparison of a presented base64url MAC with the expected one. */
export function isSameMac(expected: Buffer, presented: string | undefined): boolean {
  if (!presented || !/^[A-Za-z0-9_-]{1,128}$/.test(presented)) return false;
  const actual = Buffer.from(presented, 'base64url');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
