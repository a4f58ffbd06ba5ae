import type { Queryable } from './db';
import type { PasskeyChallengesRepo } from '../domain/passkeys/passkey';

/** Table `passkey_challenges` (migration 0017): one pending challenge per browser and purpose. */
export function createPasskeyChallengesRepo(db: Queryable): PasskeyChallengesRepo {
  return {
    async put({ bindingHash, purpose, challenge, userId, expiresAt, now }) {
      await db.query(
        `INSERT INTO passkey_challenges (binding_hash, purpose, challenge, user_id, expires_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (binding_hash, purpose)
         DO UPDATE SET challenge = $3, user_id = $4, expires_at = $5`,
        [bindingHash, purpose, challenge, userId, expiresAt],
      );
      // Housekeeping on the write path keeps the table bounded without a separate job (as sessions do).
      await db.query(
        `DELETE FROM passkey_challenges WHERE (binding_hash, purpose) IN (
           SELECT binding_hash, purpose FROM passkey_challenges WHERE expires_at <= $1 LIMIT 100)`,
        [now],
      );
    },
    async take(bindingHash, purpose, now) {
      // DELETE … RETURNING: of two answers racing for one challenge, exactly one gets it.
      const { rows } = await db.query<{ challenge: string; user_id: string | null; expires_at: Date }>(
        `DELETE FROM passkey_challenges WHERE binding_hash = $1 AND purpose = $2
         RETURNING challenge, user_id, expires_at`,
        [bindingHash, purpose],
      );
      const row = rows[0];
      if (!row || row.expires_at <= now) return undefined;
      return { challenge: row.challenge, userId: row.user_id };
    },
  };
}
