import { canAnswer, secondFactorChoices } from '../../src/domain/mfa/second-factor-choices';
import { authenticationOf, type Acr } from '../../src/domain/sessions/authentication-methods';

const deviceBound = { name: 'laptop', backupEligible: false };
const synced = { name: 'phone', backupEligible: true };

describe('secondFactorChoices (what can answer a second step)', () => {
  it('gives a password and a passkey the phishing-resistant classes, as the table of authenticationOf says', () => {
    // The passkey's assertion is bound to our origin: a page that phished the password cannot finish.
    expect(authenticationOf(['pwd', 'hwk'])).toEqual({ amr: ['pwd', 'hwk', 'mfa'], acr: 'phrh' });
    expect(authenticationOf(['pwd', 'swk'])).toEqual({ amr: ['pwd', 'swk', 'mfa'], acr: 'phr' });
  });

  it.each([
    // [session amr, wanted, totp, passkeys, code offered, passkeys offered]
    [['pwd'], null, true, [deviceBound, synced], true, ['laptop', 'phone']],
    [['pwd'], null, false, [synced], false, ['phone']],
    [['pwd'], 'urn:acme:acr:mfa', true, [synced], true, ['phone']],
    // A code cannot reach phr: the passkey alone; phrh: device-bound passkeys alone.
    [['pwd'], 'phr', true, [deviceBound, synced], false, ['laptop', 'phone']],
    [['pwd'], 'phrh', true, [deviceBound, synced], false, ['laptop']],
    [['pwd', 'otp', 'mfa'], 'phr', true, [synced], false, ['phone']],
    [['pwd'], 'phrh', true, [synced], false, []],
    [['pwd'], 'phr', true, [], false, []],
  ] as const)('amr %j wanting %s (totp %s)', (amr, wanted, totp, passkeys, code, offered) => {
    const choices = secondFactorChoices({
      amr,
      wantedAcr: wanted as Acr | null,
      totp,
      passkeys,
      passkeysUsable: true,
    });
    expect(choices.code).toBe(code);
    expect(choices.passkeys.map((p) => p.name)).toEqual(offered);
    expect(choices.passkeysUnusable).toBe(false);
    expect(canAnswer(choices)).toBe(code || offered.length > 0);
  });

  it('offers no passkey where the issuer cannot check one (an IP address), and says so', () => {
    const only = secondFactorChoices({
      amr: ['pwd'],
      wantedAcr: null,
      totp: false,
      passkeys: [deviceBound],
      passkeysUsable: false,
    });
    expect(only).toEqual({ code: false, passkeys: [], passkeysUnusable: true });
    expect(canAnswer(only)).toBe(false);
    const withTotp = secondFactorChoices({
      amr: ['pwd'],
      wantedAcr: 'urn:acme:acr:mfa',
      totp: true,
      passkeys: [deviceBound],
      passkeysUsable: false,
    });
    expect(withTotp).toMatchObject({ code: true, passkeys: [] });
  });
});
