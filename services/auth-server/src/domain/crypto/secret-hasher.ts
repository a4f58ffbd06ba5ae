import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Keys derived from TOKEN_SIGNING_SECRET with HKDF-SHA-256 (RFC 5869), one per purpose, so the pepper,
 * the HS256 key and the key-encryption key are independent even though one secret is configured.
 */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), `acme-auth/${purpose}`, 32),
  );
}

/** The HS256 key of self-encoded access tokens; a resource server verifying them locally derives the same. */
export function deriveHs256Key(secret: string): Buffer {
  return deriveKey(secret, 'jwt-hs256');
}

export interface SecretHasher {
  /** HMAC-SHA-256 under the server pepper: secrets, codes and tokens carry ≥256 bits, so a fast keyed hash is safe. */
  hash(value: string): Buffer;
  /** Constant-time comparison of a presented value against a stored hash. */
  verify(value: string, stored: Buffer | null | undefined): boolean;
}

export function createSecretHasher(secret: string): SecretHasher {
  const pepper = deriveKey(secret, 'pepper');
  const hash = (value: string) => createHmac('sha256', pepper).update(value, 'utf8').digest();
  return {
    hash,
    verify(value, stored) {
      const computed = hash(value);
      if (!stored || stored.length !== computed.length) {
        timingSafeEqual(computed, computed); // same work either way
        return false;
      }
      return timingSafeEqual(computed, stored);
    },
  };
}

/** 256 random bits, base64url: no ':' so it survives HTTP Basic (RFC 6749 §2.3.1, RFC 7617). */
export function generateSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Constant-time string equality (admin token). */
export function safeEqual(a: string, b: string): boolean {
  const left = createHmac('sha256', 'cmp').update(a).digest();
  const right = createHmac('sha256', 'cmp').update(b).digest();
  return timingSafeEqual(left, right);
}
