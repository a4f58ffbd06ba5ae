import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { deriveKey } from './secret-hasher';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals a refresh rotation's token response for its idempotent replay. The AES-256-GCM key is
 * HKDF-SHA-256 (RFC 5869) of the presented refresh token, salted with a TOKEN_SIGNING_SECRET-derived
 * value: opening it needs the refresh token (stored only as its keyed hash) and the server secret, so
 * neither a database dump nor the secret alone reveals the new tokens. The token hash is the associated
 * data, so a sealed row cannot be moved to another token. Layout: iv (12) | tag (16) | ciphertext.
 */
export interface ReplaySealer {
  seal(refreshToken: string, tokenHash: Buffer, plaintext: string): Buffer;
  /** undefined when the box does not open (wrong token, tampered row). */
  open(refreshToken: string, tokenHash: Buffer, sealed: Buffer): string | undefined;
}

export function createReplaySealer(secret: string): ReplaySealer {
  const salt = deriveKey(secret, 'refresh-replay-salt');
  const keyFor = (refreshToken: string) =>
    Buffer.from(hkdfSync('sha256', Buffer.from(refreshToken, 'utf8'), salt, 'acme-auth/refresh-replay', 32));
  return {
    seal(refreshToken, tokenHash, plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyFor(refreshToken), iv);
      cipher.setAAD(tokenHash);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    open(refreshToken, tokenHash, sealed) {
      if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(refreshToken), sealed.subarray(0, IV_BYTES));
        decipher.setAAD(tokenHash);
        decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([
          decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
