import type { Pool } from 'pg';
import type { AccountGrantsRepo } from '../domain/consent/authorized-app';
import type { ConsentsRepo } from '../domain/consent/consents-repo';

interface AppRow {
  client_id: string;
  name: string;
  scopes: string[];
  authorized_at: Date;
}

export function createAccountGrantsRepo(pool: Pool, consents: ConsentsRepo): AccountGrantsRepo {
  return {
    async listAuthorizedApps(userId) {
      const { rows } = await pool.query<AppRow>(
        `WITH authorizations AS (
           SELECT client_id, scopes, updated_at AS at FROM consents WHERE user_id = $1
           UNION ALL
           SELECT client_id, scopes, created_at FROM grants WHERE user_id = $1 AND revoked_at IS NULL)
         SELECT a.client_id, c.name,
                ARRAY(SELECT DISTINCT s FROM authorizations a2, unnest(a2.scopes) s
                       WHERE a2.client_id = a.client_id ORDER BY s) AS scopes,
                min(a.at) AS authorized_at
           FROM authorizations a JOIN clients c ON c.client_id = a.client_id
          GROUP BY a.client_id, c.name
          ORDER BY c.name, a.client_id`,
        [userId],
      );
      return rows.map((row) => ({
        clientId: row.client_id,
        clientName: row.name,
        scopes: row.scopes,
        authorizedAt: row.authorized_at,
      }));
    },
    deleteConsent: (userId, clientId) => consents.deleteConsent(userId, clientId),
  };
}
