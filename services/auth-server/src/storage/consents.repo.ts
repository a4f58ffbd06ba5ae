import type { Pool } from 'pg';
import type { ConsentsRepo } from '../domain/consent/consents-repo';

export function createConsentsRepo(pool: Pool): ConsentsRepo {
  return {
    async findConsent(userId, clientId) {
      const { rows } = await pool.query<{ scopes: string[] }>(
        'SELECT scopes FROM consents WHERE user_id = $1 AND client_id = $2',
        [userId, clientId],
      );
      return rows[0]?.scopes ?? null;
    },
    async saveConsent(userId, clientId, scopes) {
      await pool.query(
        `INSERT INTO consents (user_id, client_id, scopes) VALUES ($1, $2, $3)
         ON CONFLICT (user_id, client_id) DO UPDATE
           SET scopes = ARRAY(SELECT DISTINCT s FROM unnest(consents.scopes || EXCLUDED.scopes) AS s ORDER BY s),
               updated_at = now()`,
        [userId, clientId, [...new Set(scopes)].sort()],
      );
    },
    async deleteConsent(userId, clientId) {
      const { rowCount } = await pool.query('DELETE FROM consents WHERE user_id = $1 AND client_id = $2', [
        userId,
        clientId,
      ]);
      return (rowCount ?? 0) > 0;
    },
  };
}
