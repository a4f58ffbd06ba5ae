import type { Queryable } from './db';

export interface ResourceServer {
  id: string;
  secretHash: Buffer;
  audience: string;
  scopes: string[];
}

const toResourceServer = (row: Record<string, unknown>): ResourceServer => ({
  id: row.id as string,
  secretHash: row.secret_hash as Buffer,
  audience: row.audience as string,
  scopes: row.scopes as string[],
});

export function createResourceServersRepo(db: Queryable) {
  return {
    async save(rs: ResourceServer): Promise<ResourceServer> {
      const { rows } = await db.query(
        `INSERT INTO resource_servers (id, secret_hash, audience, scopes) VALUES ($1,$2,$3,$4)
         RETURNING id, secret_hash, audience, scopes`,
        [rs.id, rs.secretHash, rs.audience, rs.scopes],
      );
      return toResourceServer(rows[0]);
    },
    async findById(id: string): Promise<ResourceServer | undefined> {
      const { rows } = await db.query(
        'SELECT id, secret_hash, audience, scopes FROM resource_servers WHERE id = $1 AND disabled_at IS NULL',
        [id],
      );
      return rows[0] ? toResourceServer(rows[0]) : undefined;
    },
    async list(): Promise<ResourceServer[]> {
      const { rows } = await db.query(
        'SELECT id, secret_hash, audience, scopes FROM resource_servers WHERE disabled_at IS NULL ORDER BY id',
      );
      return rows.map(toResourceServer);
    },
    async updateSecretHash(id: string, secretHash: Buffer): Promise<void> {
      await db.query('UPDATE resource_servers SET secret_hash = $2 WHERE id = $1', [id, secretHash]);
    },
    async delete(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM resource_servers WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
  };
}
export type ResourceServersRepo = ReturnType<typeof createResourceServersRepo>;
