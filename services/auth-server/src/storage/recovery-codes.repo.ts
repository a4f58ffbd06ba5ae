import type { Queryable } from './db';
import type { RecoveryCodesRepo } from '../domain/mfa/totp-repo';

/** Table recovery_codes (migration 0016): keyed hashes of single-use codes. */
export function createRecoveryCodesRepo(db: Queryable): RecoveryCodesRepo {
  return {
    async replace(userId, codeHashes) {
      await db.query(
        `WITH gone AS (DELETE FROM recovery_codes WHERE user_id = $1)
         INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, h FROM unnest($2::bytea[]) AS h`,
        [userId, codeHashes],
      );
    },
    async use(userId, codeHash) {
      const { rowCount } = await db.query(
        `UPDATE recovery_codes SET used_at = now()
          WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL`,
        [userId, codeHash],
      );
      return (rowCount ?? 0) > 0;
    },
    async countUnused(userId) {
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL',
        [userId],
      );
      return rows[0]?.n ?? 0;
    },
    async deleteAll(userId) {
      const { rowCount } = await db.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
      return rowCount ?? 0;
    },
  };
}
