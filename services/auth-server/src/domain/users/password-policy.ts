import { MAX_PASSWORD_LENGTH } from './check-login';

/** NIST SP 800-63B §5.1.1.2: at least 8 characters for a password the user chose. */
export const MIN_NEW_PASSWORD_LENGTH = 8;

export type PasswordPolicyProblem = 'mismatch' | 'too_short' | 'too_long' | 'is_username';

/**
 * A new password as NIST SP 800-63B §5.1.1.2 asks: at least 8 characters, long ones allowed (up to
 * MAX_PASSWORD_LENGTH, 1024, well past the "at least 64" to permit; the login accepts the same), no
 * composition rules (any characters, spaces too), and not the username itself (a context-specific word
 * §5.1.1.2 says to refuse). Characters are code points, so "pässwörd" counts 8. Typed twice to catch a slip.
 */
export function checkNewPassword(input: {
  username: string;
  password: string;
  confirmation: string;
}): PasswordPolicyProblem | undefined {
  const { username, password, confirmation } = input;
  if (password !== confirmation) return 'mismatch';
  const length = [...password.slice(0, MAX_PASSWORD_LENGTH + 1)].length;
  if (length < MIN_NEW_PASSWORD_LENGTH) return 'too_short';
  if (password.length > MAX_PASSWORD_LENGTH) return 'too_long';
  if (password.trim().toLowerCase() === username.trim().toLowerCase()) return 'is_username';
  return undefined;
}
