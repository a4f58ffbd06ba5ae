import type { Pool, PoolClient } from 'pg';

/** Either the pool (one statement) or a client inside a transaction: repos accept both. */
export type Queryable = Pool | PoolClient;

/** Runs `work` in one transaction on a pooled client; rolls back on any error (multi-row writes are atomic). */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Postgres errors after which the whole transaction may simply run again. */
const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

/** Runs `work` in a transaction, again (up to `attempts` times) when Postgres reports a deadlock. */
export async function inRetriedTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await inTransaction(pool, work);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= attempts || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
    }
  }
}
