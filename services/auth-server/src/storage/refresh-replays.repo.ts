import type { Queryable } from './db';
import type { RefreshReplaysRepo } from '../domain/grants/refresh-replays-repo';

/**
 * Sealed token responses of recent refresh rotations, keyed by the rotated token's hash (0003). Rows live
 * for the grace window only: each save also deletes the expired ones (the table stays tiny).
 */
export function createRefreshReplaysRepo(db: Queryable): RefreshReplaysRepo {
  return {
    async save(tokenHash: Buffer, sealed: Buffer, ttlSeconds: number): Promise<void> {
      await db.query(
        `WITH purged AS (DELETE FROM refresh_replays WHERE expires_at < now())
         INSERT INTO refresh_replays (token_hash, sealed, expires_at)
         VALUES ($1, $2, now() + make_interval(secs => $3))
         ON CONFLICT (token_hash) DO NOTHING`,
        [tokenHash, sealed, ttlSeconds],
      );
    },
    /** Expired rows (the hourly purge; saves purge too, but a quiet deployment may not save for long). */
    async deleteExpired(): Promise<number> {
      const { rowCount } = await db.query('DELETE FROM refresh_replays WHERE expires_at < now()');
      return rowCount ?? 0;
    },
    /** The sealed response while it is within its window (database time, like rotated_at). */
    async find(tokenHash: Buffer): Promise<Buffer | undefined> {
      const { rows } = await db.query(
        'SELECT sealed FROM refresh_replays WHERE token_hash = $1 AND expires_at > now()',
        [tokenHash],
      );
      return (rows[0] as { sealed: Buffer } | undefined)?.sealed;
    },
  };
}
