import type { Pool } from 'pg';

/**
 * The tables whose planner statistics the search statements depend on (every per-index table a query
 * or an aggregation joins), each with the columns some statement's conditions, joins or groupings
 * read: the planner estimates rows from those. The others are only fetched, and sampling them is most
 * of an ANALYZE's cost during a load (issue 23: at 50,000 documents `documents` 80 → 61 ms without the
 * sources, version and sequence numbers, `posting_blocks` 87 → 64 ms without the block maxima and term
 * totals; the packed posting columns have no statistics at all, migration 0030). Autovacuum's ANALYZE
 * still covers every column, once a table changed by 10%.
 */
const TABLES = [
  'documents (index_id, doc_key, id)',
  'doc_values',
  'posting_blocks (index_id, term_id, base_doc_key, last_doc_key, small_run)',
  'term_dictionary',
  'field_stats (index_id, field_id)',
  'doc_tokens (index_id, field_id, doc_key)',
  'fields',
].join(', ');

/** Documents written before the first refresh. */
const MIN_ROWS = 1000;

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
 * minutes). So each instance counts the documents it writes and runs the ANALYZE itself at 1,000 and
 * then whenever that count doubled, one at a time, off the request path. Failures are ignored:
 * autovacuum remains the fallback, and nothing but plan quality depends on it.
 */
export function createStatisticsRefresher(pool: Pool): StatisticsRefresher {
  let total = 0;
  let sinceRefresh = 0;
  let running: Promise<void> | undefined;
  return {
    noteWrites(documents) {
      total += documents;
      sinceRefresh += documents;
      // Again once this instance's writes doubled: what breaks plans is statistics that say "nearly
      // empty", not ones a factor of two off; a 100,000-document load costs 7 ANALYZEs (autovacuum's
      // 10% would be 34), and a steady write rate ever fewer, leaving the steady state to autovacuum.
      if (running || sinceRefresh < Math.max(MIN_ROWS, total / 2)) return;
      sinceRefresh = 0;
      running = pool
        .query(`ANALYZE ${TABLES}`)
        .then(() => undefined)
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
