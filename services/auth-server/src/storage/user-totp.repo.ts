import type { Queryable } from './db';
import type { TotpRecord, TotpRepo } from '../domain/mfa/totp-repo';

/** Table user_totp (migration 0016): one authenticator app per user, its secret sealed. */
export function createTotpRepo(db: Queryable): TotpRepo {
  return {
    async find(userId) {
      const { rows } = await db.query<{
        secret_ciphertext: string;
        confirmed_at: Date | null;
        last_time_step: string | null;
      }>('SELECT secret_ciphertext, confirmed_at, last_time_step FROM user_totp WHERE user_id = $1', [
        userId,
      ]);
      const row = rows[0];
      if (!row) return null;
      const record: TotpRecord = {
        userId,
        secretCiphertext: row.secret_ciphertext,
        confirmedAt: row.confirmed_at,
        lastTimeStep: row.last_time_step === null ? null : Number(row.last_time_step),
      };
      return record;
    },
    async savePending(userId, secretCiphertext) {
      // A confirmed authenticator is never replaced here: turning it off comes first (with a code or password).
      const { rowCount } = await db.query(
        `INSERT INTO user_totp (user_id, secret_ciphertext) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET secret_ciphertext = EXCLUDED.secret_ciphertext, created_at = now()
         WHERE user_totp.confirmed_at IS NULL`,
        [userId, secretCiphertext],
      );
      return (rowCount ?? 0) > 0;
    },
    async acceptTimeStep(userId, timeStep, { confirm }) {
      const { rowCount } = await db.query(
        `UPDATE user_totp
            SET last_time_step = $2, confirmed_at = CASE WHEN $3 THEN now() ELSE confirmed_at END
          WHERE user_id = $1
            AND (confirmed_at IS NULL) = $3
            AND (last_time_step IS NULL OR last_time_step < $2)`,
        [userId, timeStep, confirm],
      );
      return (rowCount ?? 0) > 0;
    },
    async delete(userId) {
      const { rowCount } = await db.query('DELETE FROM user_totp WHERE user_id = $1', [userId]);
      return (rowCount ?? 0) > 0;
    },
  };
}
