import type { Queryable } from './db';
import type { SigningKeyRow, SigningKeysRepo } from '../domain/tokens/signing-key-row';

const toKey = (row: Record<string, unknown>): SigningKeyRow => ({
  kid: row.kid as string,
  alg: row.alg as SigningKeyRow['alg'],
  privateKeySealed: row.private_key_sealed as string,
  publicJwk: row.public_jwk as Record<string, unknown>,
  createdAt: row.created_at as Date,
  retiredAt: row.retired_at as Date | null,
  expiresAt: row.expires_at as Date | null,
});

export function createSigningKeysRepo(db: Queryable): SigningKeysRepo {
  return {
    /** Keys that still verify: current ones and retired ones whose tokens may not have expired yet. */
    async listUsable(): Promise<SigningKeyRow[]> {
      const { rows } = await db.query(
        `SELECT * FROM signing_keys WHERE expires_at IS NULL OR expires_at > now() ORDER BY created_at`,
      );
      return rows.map(toKey);
    },
    async save(key: Omit<SigningKeyRow, 'createdAt' | 'retiredAt' | 'expiresAt'>): Promise<void> {
      await db.query(
        `INSERT INTO signing_keys (kid, alg, private_key_sealed, public_jwk) VALUES ($1,$2,$3,$4)
         ON CONFLICT (kid) DO NOTHING`,
        [key.kid, key.alg, key.privateKeySealed, JSON.stringify(key.publicJwk)],
      );
    },
    /** Retires the current keys of an algorithm; they stay published until `keepUntil`. */
    async retire(alg: SigningKeyRow['alg'], keepUntil: Date): Promise<void> {
      await db.query(
        `UPDATE signing_keys SET retired_at = now(), expires_at = $2 WHERE alg = $1 AND retired_at IS NULL`,
        [alg, keepUntil],
      );
    },
  };
}
