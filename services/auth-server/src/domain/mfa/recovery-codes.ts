import { randomInt } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
/** Crockford-style: no 0/o, 1/i/l to misread on paper. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 10;

/**
 * Ten codes of 10 characters from a 31-letter alphabet (~49 bits each), shown as "xxxxx-xxxxx". They are
 * random, so a keyed hash (not a slow password hash) is enough to store them; guessing is throttled as a
 * TOTP code is.
 */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let code = '';
    for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** What the user typed, as hashed: case, spaces and dashes do not matter. null: cannot be a code. */
export function normalizeRecoveryCode(input: string): string | null {
  if (input.length > 64) return null;
  const code = input.toLowerCase().replace(/[\s-]/g, '');
  return code.length === LENGTH && [...code].every((c) => ALPHABET.includes(c)) ? code : null;
}
