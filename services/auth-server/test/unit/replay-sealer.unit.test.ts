import { createReplaySealer } from '../../src/domain/crypto/replay-sealer';

describe('replay sealer (AES-256-GCM under HKDF of the refresh token)', () => {
  const sealer = createReplaySealer('test-signing-secret-0123456789abcdef0123');
  const hash = Buffer.alloc(32, 7);
  const body = '{"access_token":"at","refresh_token":"rt"}';

  it('opens with the same refresh token and token hash', () => {
    expect(sealer.open('refresh-1', hash, sealer.seal('refresh-1', hash, body))).toBe(body);
  });

  it('does not open with another refresh token, another hash, another server secret or a flipped bit', () => {
    const sealed = sealer.seal('refresh-1', hash, body);
    expect(sealer.open('refresh-2', hash, sealed)).toBeUndefined();
    expect(sealer.open('refresh-1', Buffer.alloc(32, 8), sealed)).toBeUndefined();
    expect(
      createReplaySealer('another-secret-0123456789abcdef012345').open('refresh-1', hash, sealed),
    ).toBeUndefined();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(sealer.open('refresh-1', hash, tampered)).toBeUndefined();
    expect(sealer.open('refresh-1', hash, Buffer.alloc(10))).toBeUndefined();
  });

  it('never holds the plaintext and uses a fresh IV each time', () => {
    const one = sealer.seal('refresh-1', hash, body);
    const two = sealer.seal('refresh-1', hash, body);
    expect(one.includes(Buffer.from('access_token'))).toBe(false);
    expect(one.equals(two)).toBe(false);
  });
});
