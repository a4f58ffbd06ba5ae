import { createSecretHasher, generateSecret } from '../../src/domain/crypto/secret-hasher';
import {
  deriveUserCode,
  formatUserCode,
  hashUserCode,
  normalizeUserCode,
  USER_CODE_ALPHABET,
} from '../../src/domain/device/user-code';

const hasher = createSecretHasher('unit-test-signing-secret-0123456789abcdef');

describe('RFC 8628 §6.1 user codes', () => {
  it('uses the 20 consonants: no vowels (no words), no digits (no 0/O or 1/I confusion)', () => {
    expect([...USER_CODE_ALPHABET].sort().join('')).toBe('BCDFGHJKLMNPQRSTVWXZ');
    expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOUY0-9]/);
  });

  it('derives 8 letters of the alphabet from the device code, the same every time, under the pepper', () => {
    const deviceCode = generateSecret();
    const code = deriveUserCode(hasher, deviceCode);
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    expect(deriveUserCode(hasher, deviceCode)).toBe(code);
    const otherPepper = createSecretHasher('another-signing-secret-0123456789abcdefgh');
    expect(deriveUserCode(otherPepper, deviceCode)).not.toBe(code);
  });

  it('spreads letters evenly (no modulo bias): each letter within 3% of its share over 320,000 letters', () => {
    // byte % 20 over all 256 values would give the last 4 letters 12/256 instead of 12.8/256: 6% short.
    const counts = new Map<string, number>();
    for (let i = 0; i < 40_000; i++)
      for (const letter of deriveUserCode(hasher, `device-${i}`))
        counts.set(letter, (counts.get(letter) ?? 0) + 1);
    expect(counts.size).toBe(20);
    for (const [letter, count] of counts)
      expect([letter, Math.abs(count - 16_000) < 500]).toEqual([letter, true]);
  });

  it.each([
    ['BCDF-GHJK', 'BCDFGHJK'],
    ['bcdf-ghjk', 'BCDFGHJK'],
    ['bcdfghjk', 'BCDFGHJK'],
    [' BcDf  gHjK ', 'BCDFGHJK'],
    ['BCDF–GHJK', 'BCDFGHJK'], // an en dash from a phone keyboard
    ['BC.DF_GH JK', 'BCDFGHJK'],
    ['B-C-D-F-G-H-J-K', 'BCDFGHJK'],
  ])('normalizes %j to %s (case, dashes, spaces and punctuation do not matter)', (input, expected) => {
    expect(normalizeUserCode(input)).toBe(expected);
  });

  it.each([
    ['too short', 'BCDF-GHJ'],
    ['too long', 'BCDF-GHJKL'],
    ['a vowel', 'BCDF-GHJA'],
    ['a digit', 'BCDF-GH1K'],
    ['empty', ''],
    ['a letter outside ASCII', 'BCDF-GHJÑ'],
    ['over 64 characters', `BCDF-GHJK${' '.repeat(60)}`],
  ])('refuses %s', (_label, input) => {
    expect(normalizeUserCode(input)).toBeUndefined();
  });

  it('formats as XXXX-XXXX, and the formatted code normalizes back', () => {
    expect(formatUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
    expect(normalizeUserCode(formatUserCode('BCDFGHJK'))).toBe('BCDFGHJK');
  });

  it('stores a keyed hash: every spelling of one code has the one key, another code another', () => {
    const key = hashUserCode(hasher, normalizeUserCode('bcdf ghjk')!);
    expect(key.equals(hashUserCode(hasher, normalizeUserCode('BCDF-GHJK')!))).toBe(true);
    expect(key.equals(hashUserCode(hasher, 'BCDFGHJL'))).toBe(false);
    expect(key.toString('latin1')).not.toContain('BCDFGHJK');
  });
});
