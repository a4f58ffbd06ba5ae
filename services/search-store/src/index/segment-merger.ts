import type { Pool, PoolClient } from 'pg';
import { rebuildBloatedBlockIndexes } from './rebuild-block-indexes';
import { reclaimMergedBlocks } from './reclaim-merged-blocks';
import { mergeSegments, type MergeRound } from './segment-merge';

/** Writes an index must pause for before its merge starts: a bulk load is not slowed by its own merges. */
const QUIET_MS = 300;
/** The longest a noted write waits for its merge while writes keep coming (a steady trickle, a long load). */
const MAX_DEFER_MS = 5000;

export interface SegmentMergerOptions {
  quietMs?: number;
  maxDeferMs?: number;
  /** After each round that merged: vacuums the table when enough of it is dead (reclaim-merged-blocks.ts). */
  reclaim?: (pool: Pool, deadBlocks: number, drained: boolean) => Promise<boolean>;
  /** Once a drain that merged has ended: rebuilds bloated indexes (rebuild-block-indexes.ts). */
  rebuild?: (pool: Pool) => Promise<boolean>;
}

export interface SegmentMerger {
  /** Notes indices written (after their transaction committed); merges their postings in the background. */
  noteWrites(indexIds: Iterable<string>): void;
  /** Resolves when no merge is running or pending (tests wait for it). */
  idle(): Promise<void>;
}

/**
 * Runs the background merge of posting blocks (segment-merge.ts) off the request path, as the
 * statistics refresher runs ANALYZE: each instance merges the indices it wrote, one round (a bounded
 * number of terms) per short transaction, until no candidate is left. Rounds start once the instance's
 * writes paused for QUIET_MS, or MAX_DEFER_MS after the first write waiting for them: on two cores a
 * merge competes with the load that feeds it, and Lucene's merge scheduler throttles for the same
 * reason. Stateless across instances: a round takes the index's row lock with SKIP LOCKED, so two
 * instances never merge one index at once, and a merger never waits for a writer (a busy index is
 * left to that writer's next noteWrites); a writer waits for at most one round. A failed round is
 * dropped (the candidates stay in the partial index; the next write or `_forcemerge` picks them up).
 * After each round that merged, the space of the blocks it deleted is reclaimed once enough of the
 * table is dead (reclaim-merged-blocks.ts: a VACUUM that skips rather than waits), so the next rounds
 * and batches fill it instead of growing the file; once a drain that merged has ended, the rest is
 * reclaimed and posting_blocks' indexes are rebuilt if the load left them bloated
 * (rebuild-block-indexes.ts). Failures there are left to autovacuum and the next drain.
 */
export function createSegmentMerger(pool: Pool, options: SegmentMergerOptions = {}): SegmentMerger {
  const quietMs = options.quietMs ?? QUIET_MS;
  const maxDeferMs = options.maxDeferMs ?? MAX_DEFER_MS;
  const reclaim = options.reclaim ?? reclaimMergedBlocks;
  const rebuild = options.rebuild ?? ((p: Pool) => rebuildBloatedBlockIndexes(p));
  const pending = new Set<string>();
  let running: Promise<void> | undefined;
  let lastWrite = 0;
  /** When the oldest write still waiting for a merge was noted. */
  let waitingSince = 0;
  /** Blocks this merger's rounds deleted since its last reclaim that vacuumed. */
  let deadBlocks = 0;

  async function round(indexId: string): Promise<MergeRound | 'busy'> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        'SELECT 1 FROM indices WHERE index_id = $1 AND NOT closed FOR UPDATE SKIP LOCKED',
        [indexId],
      );
      const done = rows.length === 0 ? 'busy' : await mergeSegments(client, indexId);
      await client.query('COMMIT');
      return done;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Until writes paused for quietMs or the oldest waited maxDeferMs. */
  async function awaitTurn(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const wait = Math.min(lastWrite + quietMs - now, waitingSince + maxDeferMs - now);
      if (wait <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
    }
  }

  async function drain(): Promise<void> {
    let merged = false;
    for (;;) {
      /** Whether the last round found nothing to merge (not a writer holding the index, not a failure). */
      let settled = false;
      while (pending.size > 0) {
        await awaitTurn();
        const [indexId] = pending;
        pending.delete(indexId!);
        const done = await round(indexId!).catch(() => undefined);
        settled = done !== 'busy' && done?.terms === 0;
        if (done !== 'busy' && done && done.terms > 0) {
          pending.add(indexId!); // more may be left
          merged = true;
          deadBlocks += done.blocksRead;
          if (await reclaim(pool, deadBlocks, false).catch(() => false)) deadBlocks = 0;
        }
        if (pending.size === 0) waitingSince = Date.now();
      }
      // A writer holding the index ends a drain too: its load goes on, and so does the work below, later.
      if (!merged || !settled) return;
      // Nothing is left to merge: the rest of the space, and the indexes the merges left bloated.
      // Writes noted meanwhile are merged next (the loop), not left to the next noteWrites.
      merged = false;
      if (await reclaim(pool, deadBlocks, true).catch(() => false)) deadBlocks = 0;
      await rebuild(pool).catch(() => false);
    }
  }

  return {
    noteWrites(indexIds) {
      const now = Date.now();
      if (pending.size === 0) waitingSince = now;
      lastWrite = now;
      for (const id of indexIds) pending.add(id);
      running ??= drain().finally(() => (running = undefined));
    },
    async idle() {
      while (running) await running;
    },
  };
}

const mergers = new WeakMap<Pool, SegmentMerger>();

/** One merger per pool (per service instance; tests start many apps in one process, each with its own pool). */
export function segmentMergerFor(pool: Pool): SegmentMerger {
  let merger = mergers.get(pool);
  if (!merger) mergers.set(pool, (merger = createSegmentMerger(pool)));
  return merger;
}

/** Merges every run of an index with at least `minRun` blocks now, in the caller's transaction (force merge). */
export async function mergeAllSegments(client: PoolClient, indexId: string, minRun: number): Promise<number> {
  let terms = 0;
  for (;;) {
    const done = await mergeSegments(client, indexId, { minRun });
    terms += done.terms;
    if (done.terms === 0) return terms;
  }
}
