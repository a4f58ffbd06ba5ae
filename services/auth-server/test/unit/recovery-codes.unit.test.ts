import { generateRecoveryCodes, normalizeRecoveryCode } from '../../src/domain/mfa/recovery-codes';

describe('recovery codes', () => {
  it('makes 10 distinct codes that read back whatever the case, spaces or dashes', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
      expect(normalizeRecoveryCode(` ${code.toUpperCase().replace('-', ' ')} `)).toBe(code.replace('-', ''));
    }
  });

  it('refuses what cannot be a code, long input included', () => {
    expect(normalizeRecoveryCode('123456')).toBeNull();
    expect(normalizeRecoveryCode('abcde-fghi1')).toBeNull(); // 1 is not in the alphabet
    expect(normalizeRecoveryCode('a'.repeat(100_000))).toBeNull();
  });
});
