import { runner } from 'node-pg-migrate';
import { Client } from 'pg';
import type { Logger } from '../logging/create-logger';

/**
 * Applies a service's versioned SQL migrations (`NNNN_what.sql` with `-- Up Migration` sections).
 *
 * Two instances may start at the same moment. node-pg-migrate's own lock is a *try* lock that makes the
 * loser fail ("Another migration is already running"), so we hold a blocking session-level advisory
 * lock around the run instead: the second instance waits, then finds nothing left to do.
 */
export async function runMigrations(options: {
  databaseUrl: string;
  dir: string;
  /** One table per service, so both services can share one database. */
  table: string;
  logger?: Logger;
}): Promise<string[]> {
  const lock = new Client({ connectionString: options.databaseUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [`migrations:${options.table}`]);
    const applied = await runner({
      databaseUrl: options.databaseUrl,
      dir: options.dir,
      migrationsTable: options.table,
      direction: 'up',
      count: Infinity,
      singleTransaction: true,
      checkOrder: true,
      noLock: true,
      verbose: false,
      log: (message: string) => options.logger?.debug(message, { kind: 'migration' }),
    });
    return applied.map((migration) => migration.name);
  } finally {
    await lock
      .query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${options.table}`])
      .catch(() => undefined);
    await lock.end();
  }
}
