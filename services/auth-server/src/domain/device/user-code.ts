import type { SecretHasher } from '../crypto/secret-hasher';

/**
 * RFC 8628 §6.1: base-20 letters with no vowels (no words can form) and no digits (no 0/O, 1/I/L mix-ups),
 * 8 characters (20^8 ≈ 2^34.6), shown as XXXX-XXXX. Entry is case-insensitive and ignores punctuation
 * and spaces; guessing is bounded by the entry throttle (§5.1) and the code's short life.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/;
/** Longer input is no user code: bounds the work on whatever a form field carries. */
const MAX_INPUT_LENGTH = 64;
/** 240 = 12 × 20: a byte at or above it would favour the first letters (modulo bias), so it is skipped. */
const UNBIASED_BYTES = 240;

/**
 * The user code of a device code: letters drawn from HMAC(pepper, device code). Deriving it (instead of
 * drawing it apart) lets a poll find the row by the user code's hash, the table's one key (migration
 * 0004). It reveals nothing new: whoever holds the device code is shown the user code anyway, and
 * without the pepper the user code cannot be computed from the device code, nor the reverse.
 */
export function deriveUserCode(hasher: SecretHasher, deviceCode: string): string {
  let code = '';
  // 32 bytes give 8 letters unless 25 of them are skipped (p ≈ 2^-77): another round then; 4 bound the loop.
  for (let round = 0; round < 4 && code.length < USER_CODE_LENGTH; round += 1) {
    for (const byte of hasher.hash(`device-code-to-user-code:${round}:${deviceCode}`)) {
      if (byte < UNBIASED_BYTES) code += USER_CODE_ALPHABET[byte % USER_CODE_ALPHABET.length];
      if (code.length === USER_CODE_LENGTH) break;
    }
  }
  if (code.length !== USER_CODE_LENGTH) throw new Error('user code derivation ran out of bytes');
  return code;
}

/**
 * The user code a person typed, as stored: case folded, spaces, dashes and any other punctuation dropped
 * (§6.1). undefined when what is left is not 8 letters of the alphabet (a typo, not a guess).
 */
export function normalizeUserCode(input: string): string | undefined {
  if (input.length > MAX_INPUT_LENGTH) return undefined;
  const letters = input.replace(/[^\p{L}\p{N}]/gu, '').toUpperCase();
  return USER_CODE.test(letters) ? letters : undefined;
}

/** XXXX-XXXX: two groups are easier to read out and to type (§6.1). */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** The stored key of a normalized user code. */
export function hashUserCode(hasher: SecretHasher, code: string): Buffer {
  return hasher.hash(`user-code:${code}`);
}
