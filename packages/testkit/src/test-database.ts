import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url)
    throw new Error('TEST_PG_ADMIN_URL is unset: run tests through jest (globalSetup starts Postgres)');
  return url;
}

/**
 * A service's schema, migrated once per run (and per Postgres server) into a template database that
 * suites' databases are copied from (`CREATE DATABASE … TEMPLATE`): a copy costs what creating an
 * empty database does, so suites no longer pay for the migrations, whose number only grows. The
 * migrations still run from empty once per run, when the template is built.
 */
export interface DatabaseTemplate {
  /** [a-z0-9_]: the template is `tpl_<name>_<hash of the migration files>`. */
  name: string;
  /** The migrations folder: its files' names and contents name the template, so an edit builds a new one. */
  migrationsDir: string;
  /** Brings an empty database to the schema (the service's runMigrations). */
  migrate(databaseUrl: string): Promise<unknown>;
}

/**
 * Creates a database for one suite on the run's Postgres server and returns its URL: empty, or a copy
 * of the template's migrated schema when one is given.
 */
export async function createTestDatabase(label: string, template?: DatabaseTemplate): Promise<string> {
  const name = `t_${safeName(label).slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    const source = template ? await ensureTemplate(client, template) : undefined;
    // Names are built from [a-z0-9_] only.
    await client.query(`CREATE DATABASE "${name}"${source ? ` TEMPLATE "${source}"` : ''}`);
  } finally {
    await client.end();
  }
  return databaseUrl(name);
}

/** Templates this process has seen in place (the check costs a round trip under a lock). */
const built = new Set<string>();

/**
 * Builds the template unless it exists. Workers race for it: a session-level advisory lock lets one
 * build while the others wait, then find it. It is built under another name and renamed only once
 * migrated, so a failed build never leaves a half-migrated template to copy; it is then closed to
 * connections, because Postgres refuses to copy a database someone is connected to.
 */
async function ensureTemplate(client: Client, template: DatabaseTemplate): Promise<string> {
  const name = `tpl_${safeName(template.name).slice(0, 30)}_${migrationsHash(template.migrationsDir)}`;
  if (built.has(name)) return name;
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      const building = `${name}_b${randomBytes(3).toString('hex')}`;
      await client.query(`CREATE DATABASE "${building}"`);
      try {
        await template.migrate(databaseUrl(building));
      } catch (error) {
        await client.query(`DROP DATABASE IF EXISTS "${building}"`).catch(() => undefined);
        throw error;
      }
      // Waits (up to 5 s, Postgres's own limit) for the migration's sessions to end.
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
      await client.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    }
    built.add(name);
    return name;
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
  }
}

/** 12 hex digits of SHA-256 over the folder's file names and contents, in name order. */
function migrationsHash(dir: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isFile());
  for (const file of files.map((entry) => entry.name).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(dir, file)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

function safeName(label: string): string {
  return label.replace(/[^a-z0-9]/gi, '_').toLowerCase();
}

function databaseUrl(name: string): string {
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
