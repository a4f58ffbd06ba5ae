import { authenticationOf, meetsAcr, requestedAcr } from '../../src/domain/sessions/authentication-methods';

describe('authenticationOf (RFC 8176 amr → acr)', () => {
  it.each([
    [['pwd'], ['pwd'], 'urn:acme:acr:1fa'],
    [['pwd', 'otp'], ['pwd', 'otp', 'mfa'], 'urn:acme:acr:mfa'],
    [['pwd', 'pwd', 'otp', 'mfa'], ['pwd', 'otp', 'mfa'], 'urn:acme:acr:mfa'],
    [['otp'], ['otp'], 'urn:acme:acr:1fa'],
    [['pwd', 'hwk'], ['pwd', 'hwk', 'mfa'], 'phrh'],
    [['swk', 'user', 'mfa'], ['swk', 'user', 'mfa'], 'phr'],
    [['hwk', 'user'], ['hwk', 'user'], 'urn:acme:acr:1fa'],
  ] as const)('%j → amr %j, acr %s', (methods, amr, acr) => {
    expect(authenticationOf(methods)).toEqual({ amr, acr });
  });

  it('reads acr_values as the weakest known value and compares levels', () => {
    expect(requestedAcr(['urn:other', 'phr', 'urn:acme:acr:mfa'])).toBe('urn:acme:acr:mfa');
    expect(requestedAcr(['urn:other'])).toBeUndefined();
    expect(meetsAcr('urn:acme:acr:1fa', 'urn:acme:acr:mfa')).toBe(false);
    expect(meetsAcr('phr', 'urn:acme:acr:mfa')).toBe(true);
    expect(meetsAcr('urn:acme:acr:mfa', 'phr')).toBe(false);
    expect(meetsAcr('urn:acme:acr:1fa', undefined)).toBe(true);
  });
});
