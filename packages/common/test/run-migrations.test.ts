import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase } from '@acme/testkit';
import { runMigrations } from '../src';

function migrationsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'acme-migrations-'));
  writeFileSync(
    join(dir, '0001_first.sql'),
    '-- Up Migration\nCREATE TABLE things (id int PRIMARY KEY);\n-- Down Migration\nDROP TABLE things;\n',
  );
  // A slow second step widens the window in which a second instance could interleave.
  writeFileSync(
    join(dir, '0002_second.sql'),
    '-- Up Migration\nSELECT pg_sleep(0.3);\nINSERT INTO things VALUES (1);\n-- Down Migration\nDELETE FROM things;\n',
  );
  return dir;
}

describe('runMigrations', () => {
  it('applies each migration exactly once when two instances start at the same moment', async () => {
    const databaseUrl = await createTestDatabase('migrate');
    const dir = migrationsDir();
    const [first, second] = await Promise.all([
      runMigrations({ databaseUrl, dir, table: 'm' }),
      runMigrations({ databaseUrl, dir, table: 'm' }),
    ]);
    expect([...first, ...second].sort()).toEqual(['0001_first', '0002_second']);
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM things');
      expect(rows[0].n).toBe(1);
      const applied = await client.query('SELECT name FROM m ORDER BY id');
      expect(applied.rows.map((r: { name: string }) => r.name)).toEqual(['0001_first', '0002_second']);
    } finally {
      await client.end();
    }
  });

  it('does nothing on a database that is already up to date', async () => {
    const databaseUrl = await createTestDatabase('migrate');
    const dir = migrationsDir();
    await runMigrations({ databaseUrl, dir, table: 'm' });
    expect(await runMigrations({ databaseUrl, dir, table: 'm' })).toEqual([]);
  });
});
