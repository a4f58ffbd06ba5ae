import type { Pool, PoolClient } from 'pg';
import { mergeSegments, type MergeRound } from './segment-merge';

/** How long the merger waits before trying an index again whose row lock a writer holds. */
const RETRY_MS = 50;

export interface SegmentMerger {
  /** Notes indices written (after their transaction committed); merges their postings in the background. */
  noteWrites(indexIds: Iterable<string>): void;
  /** Resolves when no merge is running or pending (tests wait for it). */
  idle(): Promise<void>;
}

/**
 * Runs the background merge of posting blocks (segment-merge.ts) off the request path, as the
 * statistics refresher runs ANALYZE: each instance merges the indices it wrote, one round (a bounded
 * number of terms) per short transaction, until no candidate is left. Stateless across instances: a
 * round takes the index's row lock with SKIP LOCKED, so two instances never merge one index at once,
 * and a merger never waits for a writer (it comes back RETRY_MS later); a writer waits for at most one
 * round. A failed round is dropped (the candidates stay in the partial index; the next write or
 * `_forcemerge` picks them up).
 */
export function createSegmentMerger(pool: Pool): SegmentMerger {
  const pending = new Set<string>();
  let running: Promise<void> | undefined;

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

  async function drain(): Promise<void> {
    while (pending.size > 0) {
      const [indexId] = pending;
      pending.delete(indexId!);
      const done = await round(indexId!).catch(() => undefined);
      if (done === 'busy') {
        pending.add(indexId!);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      } else if (done && done.terms > 0) pending.add(indexId!); // more may be left
    }
  }

  return {
    noteWrites(indexIds) {
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
