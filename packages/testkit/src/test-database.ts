import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url)
    throw new Error('TEST_PG_ADMIN_URL is unset: run tests through jest (globalSetup starts Postgres)');
  return url;
}

/**
 * Creates a fresh, empty database for one suite on the run's Postgres server and returns its URL.
 * The caller applies its own service's migrations, so every suite also tests "migrations from empty".
 */
export async function createTestDatabase(label: string): Promise<string> {
  const name = `t_${label
    .replace(/[^a-z0-9]/gi, '_')
    .toLowerCase()
    .slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`); // name is built from [a-z0-9_] only
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** The run's Redis URL. Tests share the server and keep apart by unique keys or key prefixes. */
export function testRedisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) throw new Error('TEST_REDIS_URL is unset: run tests through jest (globalSetup starts Redis)');
  return url;
}

/** A unique suffix for ids in one test, so tests never collide on shared servers. */
export function uniqueId(prefix = 'x'): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}
