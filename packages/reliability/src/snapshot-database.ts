import { Client } from 'pg';

/**
 * Row count and a content hash of every table in the database's public schema (both services share it in
 * the stacks here). Two equal snapshots mean no stored row was added, removed or changed.
 */
export async function snapshotDatabase(url: string, skip: string[] = []): Promise<Record<string, string>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const snapshot: Record<string, string> = {};
    for (const { table_name: table } of rows) {
      if (skip.includes(table)) continue;
      const quoted = `"${table.replace(/"/g, '""')}"`; // a catalog name, not input
      const { rows: result } = await client.query<{ n: string; h: string | null }>(
        `SELECT count(*)::text AS n, md5(string_agg(md5(t::text), '' ORDER BY md5(t::text))) AS h FROM ${quoted} t`,
      );
      snapshot[table] = `${result[0]!.n}:${result[0]!.h ?? ''}`;
    }
    return snapshot;
  } finally {
    await client.end();
  }
}
