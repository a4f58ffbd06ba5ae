import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import type { KeyEncryption } from '../crypto/key-encryption';
import type { SigningKeysRepo } from './signing-key-row';

export type AsymmetricAlg = 'RS256' | 'ES256';

export interface SigningKey {
  kid: string;
  alg: AsymmetricAlg;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Record<string, unknown>;
  retired: boolean;
}

/**
 * The asymmetric keys (ID tokens, RS256/ES256 access tokens). Generated on first start when none exist;
 * rotation retires the current key but keeps it published until the tokens it signed have expired.
 * Unknown kids trigger one reload, so a key rotated on another instance verifies here too
 * (RFC 8725 §3.10: a kid is only ever looked up in our own set, never fetched).
 */
export function createSigningKeyStore(repo: SigningKeysRepo, sealer: KeyEncryption) {
  let keys: SigningKey[] = [];
  let loadedAt = 0;

  async function load(): Promise<void> {
    const rows = await repo.listUsable();
    keys = rows.map((row) => {
      const privateKey = createPrivateKey(sealer.decrypt(row.privateKeySealed));
      return {
        kid: row.kid,
        alg: row.alg,
        privateKey,
        publicKey: createPublicKey(privateKey),
        publicJwk: row.publicJwk,
        retired: row.retiredAt !== null,
      };
    });
    loadedAt = Date.now();
  }

  async function generate(alg: AsymmetricAlg): Promise<void> {
    const { privateKey, publicKey } =
      alg === 'RS256'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    const kid = createHash('sha256').update(JSON.stringify(jwk)).digest('base64url').slice(0, 16);
    await repo.save({
      kid,
      alg,
      privateKeySealed: sealer.encrypt(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()),
      publicJwk: { ...jwk, kid, alg, use: 'sig' },
    });
  }

  return {
    /** Loads the keys, creating one per algorithm on first start. */
    async ensure(): Promise<void> {
      await load();
      for (const alg of ['RS256', 'ES256'] as const) {
        if (!keys.some((k) => k.alg === alg && !k.retired)) await generate(alg);
      }
      await load();
    },
    /** New current key for `alg`; the old one stays in the JWKS for `keepSeconds` (≥ the longest token life). */
    async rotate(alg: AsymmetricAlg, keepSeconds: number): Promise<void> {
      await repo.retire(alg, new Date(Date.now() + keepSeconds * 1000));
      await generate(alg);
      await load();
    },
    current(alg: AsymmetricAlg): SigningKey {
      const key = [...keys].reverse().find((k) => k.alg === alg && !k.retired);
      if (!key) throw new Error(`no current ${alg} signing key`);
      return key;
    },
    async findByKid(kid: string): Promise<SigningKey | undefined> {
      const found = keys.find((k) => k.kid === kid);
      if (found || Date.now() - loadedAt < 1000) return found;
      await load();
      return keys.find((k) => k.kid === kid);
    },
    /** RFC 7517 JWK Set of every key that still verifies. */
    jwks(): { keys: Record<string, unknown>[] } {
      return { keys: keys.map((k) => k.publicJwk) };
    },
    /** Picks up keys rotated by another instance (JWKS is read from memory). */
    async refreshIfStale(maxAgeMs = 30_000): Promise<void> {
      if (Date.now() - loadedAt > maxAgeMs) await load();
    },
  };
}
export type SigningKeyStore = ReturnType<typeof createSigningKeyStore>;
