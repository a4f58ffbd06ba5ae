import { join } from 'node:path';
import { runMigrations } from '@acme/common';
import type { DatabaseTemplate } from '@acme/testkit';

export const MIGRATIONS_DIR = join(__dirname, '..', '..', 'src', 'storage', 'migrations');

/**
 * auth-server's migrated schema, for `createTestDatabase(label, AUTH_SCHEMA)`: migrated once per run
 * into a template, then copied per suite (packages/testkit/src/test-database.ts).
 */
export const AUTH_SCHEMA: DatabaseTemplate = {
  name: 'auth_server',
  migrationsDir: MIGRATIONS_DIR,
  migrate: (databaseUrl) => runMigrations({ databaseUrl, dir: MIGRATIONS_DIR, table: 'auth_migrations' }),
};
