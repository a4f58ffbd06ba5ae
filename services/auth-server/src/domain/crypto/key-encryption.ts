import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './secret-hasher';

/**
 * Private signing keys at rest: AES-256-GCM under a key derived from TOKEN_SIGNING_SECRET.
 * Stored as base64(iv ‖ tag ‖ ciphertext); a database dump alone does not yield a signing key.
 */
export interface KeyEncryption {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

export function createKeyEncryption(secret: string): KeyEncryption {
  const key = deriveKey(secret, 'signing-key-encryption');
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    decrypt(sealed) {
      const raw = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
