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

/** `purpose` is the HKDF label: signing keys and client_secret_jwt secrets are sealed under different keys. */
export function createKeyEncryption(secret: string, purpose = 'signing-key-encryption'): KeyEncryption {
  const key = deriveKey(secret, purpose);
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

/** client_secret_jwt secrets (RFC 7523 §2.2): the server needs the secret itself to check their HMAC. */
export function createClientSecretEncryption(secret: string): KeyEncryption {
  return createKeyEncryption(secret, 'client-secret-encryption');
}

/** A client_secret_jwt resource server's secret (RFC 7523 §2.2 at /token_info), under a key of its own. */
export function createResourceServerSecretEncryption(secret: string): KeyEncryption {
  return createKeyEncryption(secret, 'resource-server-secret-encryption');
}
