import type { Pool, PoolClient } from 'pg';
import { taskCancelled } from '../es-errors';
import { openIndexReaders, type IndexReader, type IndexRow } from '../query/index-reader';
import { ShardQueryError, toSearchPhaseError } from '../query/shard-query-error';
import { dropConnectionOnAbort } from '../storage/drop-connection-on-abort';
import { resolveSearchIndices } from './search-index-resolver';
import type { SearchTarget } from './search-target';

/**
 * Runs a read in one REPEATABLE READ snapshot: the statistics a score uses (field and term stats)
 * and the postings it reads come from the same moment even while bulks commit, as on a Lucene
 * point-in-time reader. Shard-level errors become ES's search_phase_execution_exception. When `gone`
 * fires (the client left), the connection is dropped and its statements stop (issue 17).
 */
export async function inSnapshot<T>(
  pool: Pool,
  target: SearchTarget,
  work: (client: PoolClient, readers: IndexReader[]) => Promise<T>,
  resolved: IndexRow[] | undefined,
  gone: AbortSignal | undefined,
  /** Runs first in the transaction: a scroll or PIT imports its exported snapshot here. */
  enter?: (client: PoolClient) => Promise<void>,
): Promise<T> {
  const client = await pool.connect();
  const guard = dropConnectionOnAbort(client, gone);
  let readers: IndexReader[] = [];
  try {
    if (guard.dropped) throw taskCancelled();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    if (enter) await enter(client);
    const indices =
      resolved ??
      (await resolveSearchIndices(client, target.index, { ignoreUnavailable: target.ignoreUnavailable }));
    readers = await openIndexReaders(client, indices);
    const result = await work(client, readers);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (guard.dropped) throw taskCancelled();
    await client.query('ROLLBACK').catch(() => undefined);
    if (error instanceof ShardQueryError) {
      throw toSearchPhaseError(
        error,
        readers.map((r) => r.name),
      );
    }
    throw error;
  } finally {
    guard.done();
    if (!guard.dropped) client.release();
  }
}
