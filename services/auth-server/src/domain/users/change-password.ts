import { checkLogin, type LoginUserStore } from './check-login';
import { hashPassword } from './hash-password';

/** Stores a new password hash (users.repo.ts). */
export interface PasswordUpdater {
  /** Replaces the enabled user's argon2id hash; false when the user is gone or disabled. */
  updatePasswordHash(userId: string, passwordHash: string): Promise<boolean>;
}

/**
 * Changes a signed-in user's password: the current one must verify (the same argon2 check as the login,
 * so a stolen session alone cannot take the account over); the new one is hashed with argon2id
 * (hashPassword). The caller has checked the policy and the throttle, and ends the other sessions.
 * Returns false when the current password is wrong.
 */
export async function changePassword(
  store: LoginUserStore & PasswordUpdater,
  user: { userId: string; username: string },
  currentPassword: string,
  newPassword: string,
): Promise<boolean> {
  const checked = await checkLogin(store, user.username, currentPassword);
  if (!checked || checked.userId !== user.userId) return false;
  return store.updatePasswordHash(user.userId, await hashPassword(newPassword));
}
