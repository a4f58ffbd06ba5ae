import type { Pool, PoolClient } from 'pg';

/** Bytes a primary key entry of posting_blocks takes: 8 header + 3 × 8 key, a 4-byte line pointer, leaf fillfactor 90. */
const PKEY_ENTRY_BYTES = 40;
/** The primary key is rebuilt once it is this many times the size its entries need. */
export const REBUILD_FACTOR = 2;
/** ... and at least this much larger: below, a rebuild is not worth its sort. */
export const REBUILD_MIN_EXCESS_BYTES = 8 * 1024 * 1024;
/** A rebuild of a million-document index's keys takes seconds; this bounds a stuck one. */
const REBUILD_TIMEOUT_MS = 10 * 60 * 1000;
/**
 * A concurrent rebuild waits for every transaction older than its new index (a scroll or a point in
 * time holds one open for its keep-alive): while one is older than this, no rebuild starts, and a
 * wait for a lock or a snapshot that takes longer than REBUILD_LOCK_TIMEOUT_MS fails it (its copy is
 * dropped): the merger, which waits for the rebuild, is never held up for long.
 */
const OLD_TRANSACTION_MS = 5000;
const REBUILD_LOCK_TIMEOUT_MS = 10_000;
/** pg_try_advisory_lock key: one rebuild at a time across instances ('pbix' as an int4). */
const REBUILD_LOCK = 0x70626978;

export interface RebuildOptions {
  factor?: number;
  minExcessBytes?: number;
  /** Transactions open longer than this (in this database) defer the rebuild. */
  oldTransactionMs?: number;
}

/**
 * Rebuilds posting_blocks' indexes (REINDEX INDEX CONCURRENTLY) when its primary key holds far
 * more pages than its entries need. A load writes a term's postings as one small block per batch
 * and the background merge folds them into full blocks only once the load pauses (the writer holds
 * the index between its batches), so the key's pages were split for the load's peak, five times the
 * blocks the merge leaves on the bench's 100,000 documents (790k against 141k): VACUUM removes the
 * dead entries but frees a B-tree page only once it is empty, and the key stayed at 43 MB, 12% leaf
 * density, where its live entries need 6 MB. Lucene's merges leave no such residue because a merged
 * segment is a new file; a concurrent rebuild is Postgres's way to the same end: it builds the new
 * index beside the old one and swaps them, taking no lock that blocks reads or writes
 * (https://www.postgresql.org/docs/15/sql-reindex.html#SQL-REINDEX-CONCURRENTLY).
 *
 * Called by the segment merger once a drain that merged has ended and it vacuumed (so reltuples
 * counts the live blocks). One instance at a time (an advisory lock it does not wait for). A rebuild
 * that fails (timeout, cancel) leaves an invalid `_ccnew` index that writes still maintain: dropped
 * here, then and on the next call. Resolves to whether it rebuilt.
 */
export async function rebuildBloatedBlockIndexes(pool: Pool, options: RebuildOptions = {}): Promise<boolean> {
  const factor = options.factor ?? REBUILD_FACTOR;
  const minExcess = options.minExcessBytes ?? REBUILD_MIN_EXCESS_BYTES;
  const oldTransactionMs = options.oldTransactionMs ?? OLD_TRANSACTION_MS;
  const client = await pool.connect();
  let reset = true;
  try {
    const { rows: locked } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
      REBUILD_LOCK,
    ]);
    if (!locked[0]!.ok) return false;
    try {
      await client.query(`SET statement_timeout = ${REBUILD_TIMEOUT_MS}`);
      await dropInvalidCopies(client);
      const { rows } = await client.query<{ bytes: string; tuples: number }>(
        `SELECT pg_relation_size('posting_blocks_pkey') AS bytes, c.reltuples AS tuples
           FROM pg_class c WHERE c.oid = 'posting_blocks'::regclass`,
      );
      const bytes = Number(rows[0]!.bytes);
      // Its entries, and the metapage and root every B-tree has.
      const needed = Math.max(0, rows[0]!.tuples) * PKEY_ENTRY_BYTES + 2 * 8192;
      // reltuples is -1 before the first VACUUM or ANALYZE: unknown, so no rebuild.
      if (rows[0]!.tuples < 0 || bytes < factor * needed || bytes - needed < minExcess) return false;
      const { rows: old } = await client.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND backend_xmin IS NOT NULL AND xact_start < now() - make_interval(secs => $1::float8 / 1000)
          LIMIT 1`,
        [oldTransactionMs],
      );
      if (old.length > 0) return false;
      await client.query(`SET lock_timeout = ${REBUILD_LOCK_TIMEOUT_MS}`);
      try {
        // Index by index rather than REINDEX TABLE, which would rebuild the TOAST table's index too.
        await client.query('REINDEX INDEX CONCURRENTLY posting_blocks_pkey');
        await client.query('REINDEX INDEX CONCURRENTLY posting_blocks_merge_candidates');
      } catch (error) {
        await dropInvalidCopies(client).catch(() => undefined);
        throw error;
      }
      return true;
    } finally {
      // A connection that cannot reset its timeout or drop the lock is closed (which drops the lock).
      reset = await client
        .query(`RESET statement_timeout; RESET lock_timeout; SELECT pg_advisory_unlock(${REBUILD_LOCK})`)
        .then(
          () => true,
          () => false,
        );
    }
  } finally {
    client.release(!reset);
  }
}

/** The invalid indexes an interrupted concurrent rebuild of posting_blocks left (`…_ccnew`, `…_ccold`). */
async function dropInvalidCopies(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT quote_ident(i.relname) AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = 'posting_blocks'::regclass AND NOT x.indisvalid
        AND i.relname ~ '^posting_blocks_.*_cc(new|old)[0-9]*$'`,
  );
  for (const { name } of rows) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
