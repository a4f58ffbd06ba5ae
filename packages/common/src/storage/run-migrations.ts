import { runner } from 'node-pg-migrate';
import type { Logger } from '../logging/create-logger';

/**
 * Applies a service's versioned SQL migrations (`NNNN_what.sql` with `-- Up Migration` sections).
 * node-pg-migrate takes a Postgres advisory lock first, so two instances starting at once apply each
 * migration exactly once; the second waits and then finds nothing to do.
 */
export async function runMigrations(options: {
  databaseUrl: string;
  dir: string;
  /** One table per service, so both services can share one database. */
  table: string;
  logger?: Logger;
}): Promise<string[]> {
  const applied = await runner({
    databaseUrl: options.databaseUrl,
    dir: options.dir,
    migrationsTable: options.table,
    direction: 'up',
    count: Infinity,
    singleTransaction: true,
    checkOrder: true,
    noLock: false,
    verbose: false,
    log: (message: string) => options.logger?.debug(message, { kind: 'migration' }),
  });
  return applied.map((migration) => migration.name);
}
