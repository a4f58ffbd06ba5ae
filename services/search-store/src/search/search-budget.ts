import type { Pool, PoolClient } from 'pg';

/** Postgres's query_canceled, which statement_timeout raises. */
const QUERY_CANCELED = '57014';

export type Budgeted<T> = { timedOut: false; value: T } | { timedOut: true };

function isClient(db: Pool | PoolClient): db is PoolClient {
  return typeof (db as PoolClient).release === 'function';
}

function msOf(setting: string): number {
  // current_setting('statement_timeout') prints '0', '30s', '5000ms', '1min'…: read it as ms.
  const m = /^(\d+)\s*(ms|s|min|h|d)?$/.exec(setting.trim());
  if (!m) return 0;
  const unit = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 'ms'] ?? 1;
  return Number(m[1]) * unit;
}

/**
 * A search's `timeout` (ES "Search API › timeout"): the statements of the query phase run under a
 * statement_timeout of what is left of the budget, never above the connection's own (the house
 * rule's per-statement timeout still holds). When the budget runs out, the statement is cancelled
 * and rolled back to a savepoint, and the caller answers what it has with `timed_out: true`;
 * cancellations by the connection's own timeout stay errors.
 */
export async function withinBudget<T>(
  db: Pool | PoolClient,
  deadline: number | undefined,
  work: () => Promise<T>,
): Promise<Budgeted<T>> {
  if (deadline === undefined || !isClient(db)) return { timedOut: false, value: await work() };
  const { rows } = await db.query<{ t: string }>("SELECT current_setting('statement_timeout') AS t");
  const own = msOf(rows[0]?.t ?? '0');
  const left = Math.max(1, deadline - Date.now());
  const budgetWins = own === 0 || left < own;
  await db.query('SAVEPOINT search_budget');
  await db.query("SELECT set_config('statement_timeout', $1, true)", [`${budgetWins ? left : own}ms`]);
  try {
    const value = await work();
    await db.query("SELECT set_config('statement_timeout', $1, true)", [`${own}ms`]);
    await db.query('RELEASE SAVEPOINT search_budget');
    return { timedOut: false, value };
  } catch (error) {
    if (budgetWins && (error as { code?: string }).code === QUERY_CANCELED) {
      // Rolling back to the savepoint also restores the connection's statement_timeout.
      await db.query('ROLLBACK TO SAVEPOINT search_budget');
      await db.query('RELEASE SAVEPOINT search_budget');
      return { timedOut: true };
    }
    throw error;
  }
}
