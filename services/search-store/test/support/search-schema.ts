import { join } from 'node:path';
import { runMigrations } from '@acme/common';
import type { DatabaseTemplate } from '@acme/testkit';

export const MIGRATIONS_DIR = join(__dirname, '..', '..', 'src', 'storage', 'migrations');

/**
 * search-store's migrated schema, for `createTestDatabase(label, SEARCH_SCHEMA)`: migrated once per
 * run into a template, then copied per suite (packages/testkit/src/test-database.ts).
 */
export const SEARCH_SCHEMA: DatabaseTemplate = {
  name: 'search_store',
  migrationsDir: MIGRATIONS_DIR,
  migrate: (databaseUrl) => runMigrations({ databaseUrl, dir: MIGRATIONS_DIR, table: 'search_migrations' }),
};
