import type { Queryable } from './db';
import type { ResourceServer, ResourceServersRepo } from '../domain/clients/resource-server';

const toResourceServer = (row: Record<string, unknown>): ResourceServer => ({
  id: row.id as string,
  secretHash: row.secret_hash as Buffer,
  audience: row.audience as string,
  scopes: row.scopes as string[],
  jwks: (row.jwks ?? null) as ResourceServer['jwks'],
  jwksUri: (row.jwks_uri ?? null) as string | null,
  secretCiphertext: (row.secret_ciphertext ?? null) as string | null,
});
const COLUMNS = 'id, secret_hash, audience, scopes, jwks, jwks_uri, secret_ciphertext';

export function createResourceServersRepo(db: Queryable): ResourceServersRepo {
  return {
    async save(rs: ResourceServer): Promise<ResourceServer> {
      const { rows } = await db.query(
        `INSERT INTO resource_servers (id, secret_hash, audience, scopes, jwks, jwks_uri, secret_ciphertext)
         VALUES ($1,$2,$3,$4,$5,$6,$7) RETURNING ${COLUMNS}`,
        [
          rs.id,
          rs.secretHash,
          rs.audience,
          rs.scopes,
          rs.jwks ? JSON.stringify(rs.jwks) : null,
          rs.jwksUri ?? null,
          rs.secretCiphertext ?? null,
        ],
      );
      return toResourceServer(rows[0]);
    },
    async findById(id: string): Promise<ResourceServer | undefined> {
      const { rows } = await db.query(
        `SELECT ${COLUMNS} FROM resource_servers WHERE id = $1 AND disabled_at IS NULL`,
        [id],
      );
      return rows[0] ? toResourceServer(rows[0]) : undefined;
    },
    async list(): Promise<ResourceServer[]> {
      const { rows } = await db.query(
        `SELECT ${COLUMNS} FROM resource_servers WHERE disabled_at IS NULL ORDER BY id`,
      );
      return rows.map(toResourceServer);
    },
    async updateSecret(id: string, secretHash: Buffer, secretCiphertext: string): Promise<void> {
      // The sealed copy follows the hash only where one is kept (client_secret_jwt resource servers).
      await db.query(
        `UPDATE resource_servers SET secret_hash = $2,
           secret_ciphertext = CASE WHEN secret_ciphertext IS NULL THEN NULL ELSE $3 END
         WHERE id = $1`,
        [id, secretHash, secretCiphertext],
      );
    },
    /**
     * Makes the row match `rs` (inserting it, or updating a differing or disabled one) in one statement,
     * so concurrent starts cannot race; a row that already matches is not written at all.
     */
    async upsert(rs: ResourceServer, sealedSecret: string): Promise<'created' | 'updated' | 'unchanged'> {
      const { rows } = await db.query<{ inserted: boolean }>(
        `INSERT INTO resource_servers AS r (id, secret_hash, audience, scopes) VALUES ($1,$2,$3,$4)
         ON CONFLICT (id) DO UPDATE
           SET secret_hash = EXCLUDED.secret_hash, audience = EXCLUDED.audience, scopes = EXCLUDED.scopes,
               disabled_at = NULL,
               secret_ciphertext = CASE WHEN r.secret_ciphertext IS NULL THEN NULL ELSE $5 END
           WHERE r.secret_hash <> EXCLUDED.secret_hash OR r.audience <> EXCLUDED.audience
              OR r.scopes <> EXCLUDED.scopes OR r.disabled_at IS NOT NULL
         RETURNING (xmax = 0) AS inserted`,
        [rs.id, rs.secretHash, rs.audience, rs.scopes, sealedSecret],
      );
      if (!rows[0]) return 'unchanged';
      return rows[0].inserted ? 'created' : 'updated';
    },
    async delete(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM resource_servers WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
  };
}
