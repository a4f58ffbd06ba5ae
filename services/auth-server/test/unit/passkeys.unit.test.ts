import { isSignCountValid } from '../../src/domain/passkeys/check-sign-count';
import { passkeyAuthentication } from '../../src/domain/passkeys/passkey-authentication';
import { relyingPartyOf } from '../../src/domain/passkeys/relying-party';

describe('passkey rules', () => {
  it.each([
    // [stored, presented, valid] — WebAuthn L3 §7.2 step 22
    [0, 0, true], // an authenticator without a counter
    [0, 1, true],
    [4, 5, true],
    [5, 5, false], // the same counter twice: a clone signal
    [5, 3, false],
    [5, 0, false], // a counter that went back to 0
  ])('sign counter stored %i, presented %i: valid %s', (stored, presented, valid) => {
    expect(isSignCountValid(stored, presented)).toBe(valid);
  });

  it('records RFC 8176 methods and the acr for device-bound and synced passkeys', () => {
    expect(passkeyAuthentication({ userVerified: true, backupEligible: false })).toEqual({
      amr: ['hwk', 'user', 'mfa'],
      acr: 'phrh',
    });
    expect(passkeyAuthentication({ userVerified: true, backupEligible: true })).toEqual({
      amr: ['swk', 'user', 'mfa'],
      acr: 'phr',
    });
    // Without user verification a passkey is one factor (possession).
    expect(passkeyAuthentication({ userVerified: false, backupEligible: false })).toEqual({
      amr: ['hwk', 'user'],
      acr: 'urn:acme:acr:1fa',
    });
  });

  it('takes the RP ID and origin from the issuer, and has none for an IP-address issuer', () => {
    expect(relyingPartyOf('https://login.example.com/tenant', 'Acme')).toEqual({
      id: 'login.example.com',
      name: 'Acme',
      origin: 'https://login.example.com',
    });
    expect(relyingPartyOf('http://localhost:4000', 'x')).toMatchObject({
      id: 'localhost',
      origin: 'http://localhost:4000',
    });
    expect(relyingPartyOf('http://127.0.0.1:4000', 'x')).toBeUndefined();
    expect(relyingPartyOf('http://[::1]:4000', 'x')).toBeUndefined();
  });
});
