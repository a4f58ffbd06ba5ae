import { describeDevice } from '../../src/domain/sessions/describe-device';
import { checkNewPassword } from '../../src/domain/users/password-policy';

describe('describeDevice: a coarse browser and system from a User-Agent', () => {
  it.each([
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Edge · Windows',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
      'Chrome · Android',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
      'Safari · macOS',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0 Mobile/15E148 Safari/604.1',
      'Chrome · iOS',
    ],
    [
      'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
      'Chrome · ChromeOS',
    ],
    ['curl/8.5.0', null],
    [undefined, null],
    ['', null],
  ])('%s → %s', (agent, expected) => {
    expect(describeDevice(agent)).toBe(expected);
  });

  it('reads only the start of a huge header', () => {
    expect(describeDevice(`${'x'.repeat(100_000)} Firefox/1 Linux`)).toBeNull();
  });
});

describe('checkNewPassword: NIST SP 800-63B length rules, nothing else', () => {
  const check = (password: string, confirmation = password, username = 'Ada') =>
    checkNewPassword({ username, password, confirmation });
  it('asks for at least 8 characters, counted as code points, and allows up to 1024', () => {
    expect(check('1234567')).toBe('too_short');
    expect(check('😀😀😀😀😀😀😀')).toBe('too_short'); // 7 characters, 14 UTF-16 units
    expect(check('pässwörd')).toBeUndefined();
    expect(check('aaaaaaaa')).toBeUndefined(); // no composition rules
    expect(check('x'.repeat(1024))).toBeUndefined();
    expect(check('x'.repeat(1025))).toBe('too_long');
  });
  it('refuses a mismatch and the username itself, whatever its case', () => {
    expect(check('a good password', 'a good passw0rd')).toBe('mismatch');
    expect(check('lovelace', 'lovelace', 'Lovelace')).toBe('is_username');
    expect(check(' LOVELACE ', ' LOVELACE ', 'lovelace')).toBe('is_username');
    expect(check('lovelace1', 'lovelace1', 'lovelace')).toBeUndefined();
  });
});
