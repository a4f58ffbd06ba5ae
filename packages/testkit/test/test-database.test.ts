import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, uniqueId, type DatabaseTemplate } from '../src';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A template whose "migrations" folder holds one SQL file, counting how often it is migrated. */
function sqlTemplate(sql: string): DatabaseTemplate & { runs: number; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'acme-tpl-'));
  writeFileSync(join(dir, '0001_schema.sql'), sql);
  const template = {
    // Unique per test: the server outlives a test (and may be DATABASE_URL's, outliving the run).
    name: uniqueId('tk'),
    migrationsDir: dir,
    dir,
    runs: 0,
    async migrate(databaseUrl: string) {
      template.runs++;
      await query(databaseUrl, `CREATE TABLE migrated (n int); ${sql}`);
    },
  };
  return template;
}

describe('databases copied from a migrated template', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('migrates once for many suites, and gives each its own copy', async () => {
    const template = sqlTemplate(
      "CREATE TABLE kv (k text PRIMARY KEY, v text); INSERT INTO kv VALUES ('seed', 'x');",
    );
    dirs.push(template.dir);
    // Concurrent callers, as jest workers are: one builds while the others wait for it.
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => createTestDatabase('tpl', template)));
    expect(template.runs).toBe(1);
    expect(new Set([a, b, c]).size).toBe(3);
    await query(a!, "INSERT INTO kv VALUES ('only-a', 'y')");
    expect(await query(a!, 'SELECT k FROM kv ORDER BY k')).toEqual([{ k: 'only-a' }, { k: 'seed' }]);
    expect(await query(b!, 'SELECT k FROM kv ORDER BY k')).toEqual([{ k: 'seed' }]);
    // The template itself takes no connections: a stray one would make every later copy fail.
    const [row] = await query<{ datallowconn: boolean; datistemplate: boolean }>(
      process.env.TEST_PG_ADMIN_URL!,
      `SELECT datallowconn, datistemplate FROM pg_database WHERE datname LIKE 'tpl\\_${template.name}\\_%'`,
    );
    expect(row).toEqual({ datallowconn: false, datistemplate: true });
  });

  it('builds a new template when a migration file changes', async () => {
    const template = sqlTemplate('CREATE TABLE one (n int);');
    dirs.push(template.dir);
    await createTestDatabase('tpl', template);
    writeFileSync(join(template.dir, '0002_more.sql'), 'CREATE TABLE two (n int);');
    template.migrate = async (databaseUrl) => {
      template.runs++;
      await query(databaseUrl, 'CREATE TABLE one (n int); CREATE TABLE two (n int);');
    };
    const url = await createTestDatabase('tpl', template);
    expect(template.runs).toBe(2);
    expect(await query(url, "SELECT to_regclass('two') IS NOT NULL AS has")).toEqual([{ has: true }]);
  });

  it('leaves no template behind when the migration fails, so the next suite tries again', async () => {
    const template = sqlTemplate('CREATE TABLE t (n int);');
    dirs.push(template.dir);
    const migrate = template.migrate;
    template.migrate = async () => {
      template.runs++;
      throw new Error('migration 0001 failed');
    };
    await expect(createTestDatabase('tpl', template)).rejects.toThrow('migration 0001 failed');
    const left = await query(
      process.env.TEST_PG_ADMIN_URL!,
      `SELECT datname FROM pg_database WHERE datname LIKE 'tpl\\_${template.name}\\_%'`,
    );
    expect(left).toEqual([]);
    template.migrate = migrate;
    const url = await createTestDatabase('tpl', template);
    expect(await query(url, "SELECT to_regclass('t') IS NOT NULL AS has")).toEqual([{ has: true }]);
  });
});
