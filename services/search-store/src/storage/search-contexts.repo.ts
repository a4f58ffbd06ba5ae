import type { Queryable } from './queryable';

export type SearchContextKind = 'scroll' | 'pit';

/** A row of `search_contexts` (migration 0011): one open scroll or point in time. */
export interface SearchContextRow {
  id: string;
  kind: SearchContextKind;
  /** The exported snapshot's identifier (pg_export_snapshot). */
  snapshot: string;
  owner: string;
  holder: string;
  /** The user that opened it (auth/context-user.ts); null when no one was authenticated. */
  owner_user: string | null;
  /** The index expression and ignore_unavailable as opened. */
  target: { index: string | null; ignoreUnavailable: boolean };
  /**
   * A scroll's request: the body and the URL parameters; after the first page also its hit count
   * and max score, which every later page reports (the snapshot does not change them).
   */
  request: { body: unknown; params: Record<string, string | undefined>; known?: KnownTotal } | null;
  /** A scroll's place: the full sort values of the last hit served, null before the first page. */
  position: unknown[] | null;
  /** The keep-alive each use extends the context by, unless the use names another. */
  keep_alive_ms: string | number;
}

/** A scroll's `hits.total` and `max_score`, counted once on its first page (ES ScrollContext#totalHits). */
export interface KnownTotal {
  total: number;
  maxScore: number | null;
}

const COLUMNS = 'id, kind, snapshot, owner, holder, owner_user, target, request, position, keep_alive_ms';

export async function insertSearchContext(db: Queryable, row: SearchContextRow): Promise<void> {
  await db.query(
    `INSERT INTO search_contexts (${COLUMNS}, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + $10::bigint * interval '1 millisecond')`,
    [
      row.id,
      row.kind,
      row.snapshot,
      row.owner,
      row.holder,
      row.owner_user,
      JSON.stringify(row.target),
      row.request === null ? null : JSON.stringify(row.request),
      row.position === null ? null : JSON.stringify(row.position),
      row.keep_alive_ms,
    ],
  );
}

/** The live (unexpired) context of that id and kind opened by `user`, or undefined. */
export async function findLiveSearchContext(
  db: Queryable,
  id: string,
  kind: SearchContextKind,
  user: string | null,
): Promise<SearchContextRow | undefined> {
  const { rows } = await db.query<SearchContextRow>(
    `SELECT ${COLUMNS} FROM search_contexts
     WHERE id = $1 AND kind = $2 AND expires_at > now() AND owner_user IS NOT DISTINCT FROM $3`,
    [id, kind, user],
  );
  return rows[0];
}

/**
 * A use: the keep-alive starts again (ES: every use marks the context used; a use naming a
 * `scroll`/`keep_alive` also replaces the keep-alive),
 * and a scroll's position moves on (with its count, once known). False when the context expired or
 * was freed meanwhile.
 */
export async function touchSearchContext(
  db: Queryable,
  id: string,
  keepAliveMs: number | undefined,
  position?: unknown[],
  known?: KnownTotal,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE search_contexts
     SET keep_alive_ms = coalesce($2::bigint, keep_alive_ms),
         expires_at = now() + coalesce($2::bigint, keep_alive_ms) * interval '1 millisecond',
         position = coalesce($3::jsonb, position),
         request = CASE WHEN $4::jsonb IS NULL THEN request ELSE request || jsonb_build_object('known', $4::jsonb) END
     WHERE id = $1 AND expires_at > now()`,
    [
      id,
      keepAliveMs ?? null,
      position === undefined ? null : JSON.stringify(position),
      known === undefined ? null : JSON.stringify(known),
    ],
  );
  return (rowCount ?? 0) > 0;
}

/** Frees the live contexts among `ids` of that kind that `user` opened; the number freed. */
export async function deleteSearchContexts(
  db: Queryable,
  ids: readonly string[],
  kind: SearchContextKind,
  user: string | null,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM search_contexts
     WHERE id = ANY($1::uuid[]) AND kind = $2 AND expires_at > now() AND owner_user IS NOT DISTINCT FROM $3`,
    [ids, kind, user],
  );
  return rowCount ?? 0;
}

/** Frees every live context of that kind `user` opened (clear scroll `_all`); the number freed. */
export async function deleteAllSearchContexts(
  db: Queryable,
  kind: SearchContextKind,
  user: string | null,
): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM search_contexts WHERE kind = $1 AND expires_at > now() AND owner_user IS NOT DISTINCT FROM $2',
    [kind, user],
  );
  return rowCount ?? 0;
}

/** Drops one context whose snapshot can no longer be imported (its holder ended). */
export async function dropSearchContext(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM search_contexts WHERE id = $1', [id]);
}

/** Live contexts of that kind, all instances together. */
export async function countLiveSearchContexts(db: Queryable, kind: SearchContextKind): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM search_contexts WHERE kind = $1 AND expires_at > now()',
    [kind],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The sweep: deletes the expired contexts (any owner: a dead instance's rows too) and answers the
 * holders of `owner` that still serve a live context.
 */
export async function sweepSearchContexts(db: Queryable, owner: string): Promise<Set<string>> {
  await db.query('DELETE FROM search_contexts WHERE expires_at <= now()');
  const { rows } = await db.query<{ holder: string }>(
    'SELECT DISTINCT holder FROM search_contexts WHERE owner = $1',
    [owner],
  );
  return new Set(rows.map((r) => r.holder));
}
