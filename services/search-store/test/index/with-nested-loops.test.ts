import type { PoolClient } from 'pg';
import { withNestedLoops } from '../../src/index/with-nested-loops';
import { createIndexFixture, type IndexFixture } from './support/index-fixture';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

const joinSettings = async (client: PoolClient) =>
  (
    await client.query<{ hash: string; merge: string }>(
      `SELECT current_setting('enable_hashjoin') AS hash, current_setting('enable_mergejoin') AS merge`,
    )
  ).rows[0];

describe('withNestedLoops', () => {
  it('plans the statement without hash or merge joins and puts the caller settings back', async () => {
    const client = await fx.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_mergejoin = off'); // the caller's own choice survives
      const plan = await withNestedLoops(client, async () => {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT * FROM generate_series(1, 100000) a JOIN generate_series(1, 100000) b ON a = b`,
        );
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).toContain('Nested Loop');
      expect(plan).not.toMatch(/Hash Join|Merge Join/);
      expect(await joinSettings(client)).toEqual({ hash: 'on', merge: 'off' });
      await client.query('COMMIT');
      expect(await joinSettings(client)).toEqual({ hash: 'on', merge: 'on' });
    } finally {
      client.release();
    }
  });

  it('leaves nothing behind when the statement fails: the transaction rolls back with it', async () => {
    const client = await fx.pool.connect();
    try {
      await client.query('BEGIN');
      await expect(withNestedLoops(client, () => client.query('SELECT 1/0'))).rejects.toThrow(
        'division by zero',
      );
      await client.query('ROLLBACK');
      expect(await joinSettings(client)).toEqual({ hash: 'on', merge: 'on' });
    } finally {
      client.release();
    }
  });
});
