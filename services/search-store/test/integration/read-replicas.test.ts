import { Client } from 'pg';
import { runMigrations } from '@acme/common';
import { startLocalPostgres, startLocalReplica, waitFor, type LocalPostgres } from '@acme/testkit';
import { MIGRATIONS_DIR, startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';

const MAX_LAG_MS = 600;
const NDJSON = { 'content-type': 'application/x-ndjson' };

async function sql(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

const hits = async (server: RunningSearchStore, query: unknown = { match_all: {} }) => {
  const response = await call(server.url, 'POST', '/logs/_search', { query, size: 100 });
  expect(response.status).toBe(200);
  return (response.json as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id).sort();
};

/**
 * Searches on a Postgres streaming replica (issue 23): two search-store instances over one primary and
 * one hot standby, as in production. Searches go to the replica while it keeps up; a write with
 * refresh=true|wait_for (or _refresh) is visible to the next search on the other instance; a paused
 * or stopped replica is skipped and /ready says so.
 */
describe('read replicas', () => {
  let primary: LocalPostgres;
  let replica: LocalPostgres;
  let primaryUrl: string;
  let replicaUrl: string;
  let a: RunningSearchStore;
  let b: RunningSearchStore;

  beforeAll(async () => {
    primary = await startLocalPostgres({ ephemeral: true });
    await sql(primary.url, 'CREATE DATABASE search');
    primaryUrl = primary.url.replace(/\/postgres$/, '/search');
    await runMigrations({ databaseUrl: primaryUrl, dir: MIGRATIONS_DIR, table: 'search_migrations' });
    replica = await startLocalReplica(primary);
    replicaUrl = `postgres://postgres@127.0.0.1:${replica.port}/search`;
    const env = { REPLICA_MAX_LAG_MS: String(MAX_LAG_MS), REPLICA_HEARTBEAT_MS: '50' };
    a = await startSearchStore(env, { databaseUrl: primaryUrl, replicaUrls: [replicaUrl] });
    b = await startSearchStore(env, { databaseUrl: primaryUrl, replicaUrls: [replicaUrl] });
    // Until the first probes answer, every search is the primary's.
    await waitFor(
      async () =>
        (await call(b.url, 'GET', '/ready')).status === 200 &&
        ((await call(b.url, 'GET', '/ready')).json as { status: string }).status === 'ready',
      10_000,
    );
  }, 120_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await replica?.stop();
    await primary?.stop();
  });

  it('reads a write acknowledged with refresh on the other instance, every time', async () => {
    for (let i = 0; i < 20; i++) {
      const refresh = i % 2 === 0 ? 'wait_for' : 'true';
      const put = await call(a.url, 'PUT', `/logs/_doc/d${i}?refresh=${refresh}`, {
        n: i,
        msg: `entry ${i}`,
      });
      expect(put.status).toBe(201);
      expect(await hits(b, { term: { n: i } })).toEqual([`d${i}`]);
    }
    const bulk = await call(
      a.url,
      'POST',
      '/logs/_bulk?refresh=wait_for',
      ['{"index":{"_id":"bulk1"}}', '{"n":100}', '{"index":{"_id":"bulk2"}}', '{"n":101}', ''].join('\n'),
      NDJSON,
    );
    expect(bulk.status).toBe(200);
    expect(await hits(b, { range: { n: { gte: 100 } } })).toEqual(['bulk1', 'bulk2']);
    const count = await call(b.url, 'POST', '/logs/_count', { query: { match: { msg: 'entry' } } });
    expect(count.json).toMatchObject({ count: 20 });
  });

  it('serves searches from the replica, and skips it once it falls behind', async () => {
    await sql(replicaUrl, 'SELECT pg_wal_replay_pause()');
    try {
      // Not refreshed: the primary has it at once, the paused replica does not, and B still trusts
      // the replica for up to REPLICA_MAX_LAG_MS: the search misses it, so the replica served it.
      const started = Date.now();
      expect((await call(a.url, 'PUT', '/logs/_doc/unrefreshed', { n: 500 })).status).toBe(201);
      const early = await hits(b, { term: { n: 500 } });
      if (Date.now() - started < MAX_LAG_MS / 2) expect(early).toEqual([]);
      // Past the lag bound the replica is skipped: the primary answers, /ready reports the replica.
      await new Promise((resolve) => setTimeout(resolve, MAX_LAG_MS + 100));
      expect(await hits(b, { term: { n: 500 } })).toEqual(['unrefreshed']);
      const ready = await call(b.url, 'GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.json).toEqual({
        status: 'degraded',
        checks: { postgres: 'up', replica_1: 'down' },
      });
      // A refresh write waits for the lagging replica at most REPLICA_MAX_LAG_MS, then answers.
      const waitStarted = Date.now();
      expect((await call(a.url, 'PUT', '/logs/_doc/waited?refresh=true', { n: 501 })).status).toBe(201);
      const waited = Date.now() - waitStarted;
      expect(waited).toBeGreaterThanOrEqual(MAX_LAG_MS - 50);
      expect(waited).toBeLessThan(MAX_LAG_MS + 2000);
      expect(await hits(b, { term: { n: 501 } })).toEqual(['waited']);
    } finally {
      await sql(replicaUrl, 'SELECT pg_wal_replay_resume()');
    }
    // Caught up again: back in service.
    await waitFor(
      async () => ((await call(b.url, 'GET', '/ready')).json as { status: string }).status === 'ready',
      10_000,
    );
    expect(await hits(b, { terms: { n: [500, 501] } })).toEqual(['unrefreshed', 'waited']);
  });

  it('keeps answering from the primary when the replica is lost', async () => {
    const { rows } = { rows: await sql(replicaUrl, 'SELECT count(*)::int AS n FROM documents') };
    expect(rows[0]?.n).toBeGreaterThan(0);
    await replica.stop();
    const refreshed = await call(a.url, 'POST', '/logs/_refresh');
    expect(refreshed.status).toBe(200);
    expect((await call(a.url, 'PUT', '/logs/_doc/after-loss?refresh=wait_for', { n: 900 })).status).toBe(201);
    expect(await hits(b, { term: { n: 900 } })).toEqual(['after-loss']);
    await waitFor(
      async () => ((await call(b.url, 'GET', '/ready')).json as { status: string }).status === 'degraded',
      5000,
    );
    const ready = await call(b.url, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'degraded', checks: { postgres: 'up', replica_1: 'down' } });
  });
});
