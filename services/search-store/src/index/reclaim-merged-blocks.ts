import type { Pool } from 'pg';

/**
 * Dead posting blocks, as a fraction of the live ones, past which the merger vacuums the table.
 * Autovacuum's default is 0.2 (autovacuum_vacuum_scale_factor); lower here because what is dead
 * in posting_blocks is space the next merge rounds and batches would fill if it were free.
 */
export const RECLAIM_DEAD_FRACTION = 0.1;
/** Dead blocks below which a vacuum is not worth its scan (autovacuum_vacuum_threshold is 50 rows). */
export const RECLAIM_MIN_DEAD = 1000;
/**
 * The first VACUUM after a load reads the whole heap (nothing is all-visible yet) and the indexes:
 * at a million documents over a gigabyte, which the service's statement timeout (30 s) could cut
 * short, wasting the scan. This bounds a stuck one instead.
 */
const RECLAIM_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Makes the space of the blocks merges deleted reusable, so that the rows the next rounds and
 * batches write fill it instead of growing the file. A merge deletes a term's run and copies it
 * again as fewer, fuller blocks; until a VACUUM has marked the old rows' space free in the free
 * space map, Postgres appends every new row at the end of the table. Autovacuum would do it, but
 * only once 20% of the table is dead and on its next round (autovacuum_naptime, a minute). On the
 * bench's 100,000 documents the writer holds the index through the load, so its merges run once
 * the load pauses: 650k of the load's 790k blocks are deleted in ten seconds of rounds, and without
 * a VACUUM between them the 141k blocks they write went to the end of the file (heap 150 MB for
 * 62 MB of rows; 125 MB with this).
 *
 * Called by the segment merger (segment-merger.ts) off the request path with the blocks its rounds
 * deleted since its last call that vacuumed: its own count, because the cumulative statistics
 * (n_dead_tup) reach other sessions up to ten seconds late (PGSTAT_IDLE_INTERVAL), a load's worth of
 * merges. Vacuums once they are RECLAIM_DEAD_FRACTION of the table's live blocks, or, when the drain
 * has ended (`drained`: writes paused, nothing left to merge), once they are RECLAIM_MIN_DEAD: the
 * space is ready for the next load, and reltuples counts what the merge left. SKIP_LOCKED: a
 * VACUUM or ANALYZE already running on the table (autovacuum, the statistics refresher, another
 * instance's merger) makes this one a no-op instead of a wait; VACUUM takes no row locks, so writers
 * and searches go on. Resolves to whether it vacuumed (then the caller's count starts again).
 */
export async function reclaimMergedBlocks(
  pool: Pool,
  deadBlocks: number,
  drained = false,
  { minDead = RECLAIM_MIN_DEAD, fraction = RECLAIM_DEAD_FRACTION } = {},
): Promise<boolean> {
  if (deadBlocks < minDead) return false;
  if (!drained) {
    const { rows } = await pool.query<{ live: string }>(
      `SELECT greatest(s.n_live_tup, c.reltuples) AS live FROM pg_class c
       LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = 'posting_blocks'::regclass`,
    );
    if (deadBlocks < fraction * Number(rows[0]?.live ?? 0)) return false;
  }
  const client = await pool.connect();
  try {
    await client.query(`SET statement_timeout = ${RECLAIM_TIMEOUT_MS}`);
    await client.query('VACUUM (SKIP_LOCKED) posting_blocks');
  } finally {
    // A connection that cannot reset its timeout is not handed to the next statement.
    const reset = await client.query('RESET statement_timeout').then(
      () => true,
      () => false,
    );
    client.release(!reset);
  }
  return true;
}
