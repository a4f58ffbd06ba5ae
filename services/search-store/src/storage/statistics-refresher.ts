import type { Pool } from 'pg';

/**
 * The tables whose planner statistics the search statements depend on: every per-index table a query
 * or an aggregation joins.
 */
const TABLES = 'documents, doc_values, posting_blocks, terms, field_lengths, field_stats, doc_tokens, fields';

/** Rows written before the first refresh; autovacuum's own base threshold is 50, its naptime a minute. */
const MIN_ROWS = 1000;
/** As autovacuum_analyze_scale_factor: a manual ANALYZE resets the counter autovacuum reads, so it is not done twice. */
const SCALE = 0.1;

export interface StatisticsRefresher {
  /** Counts documents written (after their transaction committed); may start one ANALYZE in the background. */
  noteWrites(documents: number): void;
  /** The ANALYZE in flight, if any (tests wait for it). */
  readonly running: Promise<void> | undefined;
}

/**
 * Keeps the planner's statistics close to the data while an index grows fast. Autovacuum analyzes a
 * table once 10% of it changed, but only on its next round (up to a minute later), and until a freshly
 * filled index has statistics the planner takes its (index_id, field_id) conditions for ~1 row: a terms
 * aggregation over a new 10,000-document index then ran as a nested loop recomputing the query's
 * matches per doc value, 37 s instead of 50 ms (found by the soak: search p99 21 s in its first two
 * minutes). So each instance counts the documents it wrote and, past autovacuum's own threshold, runs
 * the ANALYZE itself at once, one at a time, off the request path. Failures are ignored: autovacuum
 * remains the fallback, and nothing but plan quality depends on it.
 */
export function createStatisticsRefresher(pool: Pool): StatisticsRefresher {
  let written = 0;
  let threshold = MIN_ROWS;
  let running: Promise<void> | undefined;
  const refresh = async (): Promise<void> => {
    await pool.query(`ANALYZE ${TABLES}`);
    const { rows } = await pool.query<{ n: number }>(
      "SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'documents'::regclass",
    );
    threshold = Math.max(MIN_ROWS, SCALE * Number(rows[0]?.n ?? 0));
  };
  return {
    noteWrites(documents) {
      written += documents;
      if (running || written < threshold) return;
      written = 0;
      running = refresh()
        .catch(() => undefined)
        .finally(() => (running = undefined));
    },
    get running() {
      return running;
    },
  };
}

const refreshers = new WeakMap<Pool, StatisticsRefresher>();

/** One refresher per pool (per service instance; tests start many apps in one process, each with its own pool). */
export function statisticsRefresherFor(pool: Pool): StatisticsRefresher {
  let refresher = refreshers.get(pool);
  if (!refresher) refreshers.set(pool, (refresher = createStatisticsRefresher(pool)));
  return refresher;
}
