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
    async findConsentedClaims(userId, clientId) {
      const { rows } = await pool.query<{ claims: string[] }>(
        'SELECT claims FROM consents WHERE user_id = $1 AND client_id = $2',
        [userId, clientId],
      );
      return rows[0]?.claims ?? [];
    },
    async saveConsent(userId, clientId, scopes, claims = []) {
      await pool.query(
        `INSERT INTO consents (user_id, client_id, scopes, claims) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, client_id) DO UPDATE
           SET scopes = ARRAY(SELECT DISTINCT s FROM unnest(consents.scopes || EXCLUDED.scopes) AS s ORDER BY s),
               claims = ARRAY(SELECT DISTINCT c FROM unnest(consents.claims || EXCLUDED.claims) AS c ORDER BY c),
               updated_at = now()`,
        [userId, clientId, [...new Set(scopes)].sort(), [...new Set(claims)].sort()],
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
