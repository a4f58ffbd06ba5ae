import type { Queryable } from './queryable';

/** The cluster uuid of the one `search_instance` row, as Postgres prints a uuid ('' before migrations). */
export async function findInstanceUuid(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ cluster_uuid: string }>('SELECT cluster_uuid FROM search_instance');
  return rows[0]?.cluster_uuid ?? '';
}
