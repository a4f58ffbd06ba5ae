import { createKeyEncryption } from '../../src/domain/crypto/key-encryption';
import { createSecretHasher, deriveHs256Key, generateSecret } from '../../src/domain/crypto/secret-hasher';

const SECRET = 'unit-test-signing-secret-0123456789abcdef';

describe('keyed hashing and key derivation', () => {
  it('generates 256-bit base64url secrets without ":"', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
  });
  it('verifies only the exact value under the same pepper', () => {
    const hasher = createSecretHasher(SECRET);
    const stored = hasher.hash('value');
    expect(hasher.verify('value', stored)).toBe(true);
    expect(hasher.verify('value2', stored)).toBe(false);
    expect(hasher.verify('value', null)).toBe(false);
    expect(createSecretHasher(`${SECRET}x`).verify('value', stored)).toBe(false);
  });
  it('derives independent keys per purpose', () => {
    expect(deriveHs256Key(SECRET)).toHaveLength(32);
    expect(deriveHs256Key(SECRET).equals(createSecretHasher(SECRET).hash(''))).toBe(false);
  });
  it('seals private keys with AES-256-GCM and detects tampering', () => {
    const sealer = createKeyEncryption(SECRET);
    const sealed = sealer.encrypt('-----BEGIN PRIVATE KEY-----');
    expect(sealer.decrypt(sealed)).toBe('-----BEGIN PRIVATE KEY-----');
    const raw = Buffer.from(sealed, 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => sealer.decrypt(raw.toString('base64'))).toThrow();
    expect(() => createKeyEncryption(`${SECRET}x`).decrypt(sealed)).toThrow();
  });
});
