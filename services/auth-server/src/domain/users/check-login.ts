import argon2 from 'argon2';
import { hashPassword } from './hash-password';

export interface LoginUser {
  userId: string;
  username: string;
  passwordHash: string;
}

export interface LoginUserStore {
  /** The enabled user with this username (case-insensitive; index users_username). */
  findByUsername(username: string): Promise<LoginUser | undefined>;
}

/** Longest username and password we hash: argon2 accepts more, but a megabyte "password" is an attack. */
export const MAX_USERNAME_LENGTH = 256;
export const MAX_PASSWORD_LENGTH = 1024;

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a username and password. An unknown user still costs one argon2 verification against a
 * dummy hash, so response time does not reveal which usernames exist (OWASP Authentication Cheat Sheet).
 */
export async function checkLogin(
  store: LoginUserStore,
  username: string,
  password: string,
): Promise<{ userId: string; username: string } | null> {
  if (username.length > MAX_USERNAME_LENGTH || password.length > MAX_PASSWORD_LENGTH) return null;
  const user = await store.findByUsername(username);
  if (!user) {
    dummyHash ??= hashPassword('dummy password for timing equalisation');
    await argon2.verify(await dummyHash, password);
    return null;
  }
  const ok = await argon2.verify(user.passwordHash, password).catch(() => false);
  return ok ? { userId: user.userId, username: user.username } : null;
}
