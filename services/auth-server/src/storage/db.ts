import type { Pool, PoolClient } from 'pg';

/** A pool or a client inside a transaction: repos accept either. */
export type Queryable = Pool | PoolClient;

/** Runs `work` in one transaction (multi-row writes are atomic). */
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
