import type { Pool, PoolClient } from 'pg';

/** Either the pool (one statement) or a client inside a transaction. */
export type Queryable = Pool | PoolClient;

/** Runs `work` in one transaction on a pooled client; rolls back on any error. */
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
