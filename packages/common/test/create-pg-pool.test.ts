import { createTestDatabase } from '@acme/testkit';
import { createPgPool, isStatementCancelled } from '../src';

describe('createPgPool', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase('pgpool');
  });

  it('cancels a statement that runs past the statement timeout with SQLSTATE 57014', async () => {
    const pool = createPgPool({ connectionString: databaseUrl, max: 1, statementTimeoutMs: 200 });
    try {
      const started = Date.now();
      const error = await pool.query('SELECT pg_sleep(5)').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(Date.now() - started).toBeLessThan(2000);
      expect((error as { code?: string }).code).toBe('57014');
      expect(isStatementCancelled(error)).toBe(true);
      // The connection stays usable and keeps its timeout.
      const { rows } = await pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
      expect(rows[0]!.statement_timeout).toBe('200ms');
    } finally {
      await pool.end();
    }
  });

  it('keeps extra options and checks for a vanished client while a statement runs', async () => {
    const pool = createPgPool({
      connectionString: databaseUrl,
      max: 1,
      statementTimeoutMs: 30_000,
      options: '-c plan_cache_mode=force_generic_plan',
    });
    try {
      const { rows } = await pool.query<Record<string, string>>(
        `SELECT current_setting('statement_timeout') AS timeout,
                current_setting('client_connection_check_interval') AS check_interval,
                current_setting('plan_cache_mode') AS plan_cache_mode`,
      );
      expect(rows[0]).toEqual({
        timeout: '30s',
        check_interval: '1s',
        plan_cache_mode: 'force_generic_plan',
      });
    } finally {
      await pool.end();
    }
  });

  it('lets a statement shorter than the timeout finish', async () => {
    const pool = createPgPool({ connectionString: databaseUrl, max: 1, statementTimeoutMs: 2000 });
    try {
      const { rows } = await pool.query<{ done: number }>('SELECT 1 AS done FROM pg_sleep(0.05)');
      expect(rows).toEqual([{ done: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
