import type { Queryable } from './queryable';

/** Persistent cluster settings, flat keys, values as strings (what Elasticsearch returns). */
export async function findClusterSettings(db: Queryable): Promise<Record<string, string>> {
  const { rows } = await db.query<{ key: string; value: string }>(
    'SELECT key, value FROM cluster_settings ORDER BY key',
  );
  return Object.fromEntries(rows.map((row) => [row.key, row.value]));
}

/** Upserts the non-null settings and removes the ones set to null (ES resets a setting given as null). */
export async function saveClusterSettings(
  db: Queryable,
  settings: Record<string, string | null>,
): Promise<void> {
  const set = Object.entries(settings).filter((e): e is [string, string] => e[1] !== null);
  const reset = Object.entries(settings)
    .filter(([, v]) => v === null)
    .map(([k]) => k);
  if (set.length > 0) {
    await db.query(
      `INSERT INTO cluster_settings (key, value) SELECT * FROM unnest($1::text[], $2::text[])
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [set.map(([k]) => k), set.map(([, v]) => v)],
    );
  }
  if (reset.length > 0) await db.query('DELETE FROM cluster_settings WHERE key = ANY($1::text[])', [reset]);
}
