import type { PoolClient } from 'pg';
import { StatementQueue } from '../storage/statement-queue';

/**
 * Runs one statement with hash and merge joins disabled, so that a join of a batch's keys against a
 * big table probes its primary key once per key. Used where the planner's choice is known to be wrong:
 * a bulk's tables grow faster than autovacuum analyzes them, so the planner takes an index for a few
 * hundred rows and hashes all of them (posting_blocks: every block of the index, per batch), a cost that
 * grows with the index (issue 6). The settings are transaction-local and put back to what they were
 * right after the statement, so the caller's other statements plan as before.
 *
 * The three statements go through the caller's queue when it has one, so that it can queue more
 * behind them before they end.
 */
export function withNestedLoops<T>(
  client: PoolClient,
  statement: () => Promise<T>,
  queue = new StatementQueue(),
): Promise<T> {
  const saved = queue.add(() =>
    client.query<{ hash: string; merge: string }>(
      `SELECT current_setting('enable_hashjoin') AS hash, current_setting('enable_mergejoin') AS merge,
              set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`,
    ),
  );
  const result = queue.add(statement);
  const restored = queue.add(async () => {
    const { hash, merge } = (await saved).rows[0]!;
    return client.query(
      `SELECT set_config('enable_hashjoin', $1, true), set_config('enable_mergejoin', $2, true)`,
      [hash, merge],
    );
  });
  return Promise.all([saved, result, restored]).then(([, value]) => value);
}
