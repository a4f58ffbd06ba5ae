import { Client } from 'pg';
import { uniqueId, waitFor } from '@acme/testkit';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';

/**
 * Issue 17: a search whose client left must not keep a Postgres backend busy. Another session holds an
 * exclusive lock on the doc values, so the search's statement waits in Postgres (as a slow one would
 * run) until the test aborts the request; then that backend must be gone within a couple of seconds.
 */
describe('a search whose client disconnects stops its Postgres statement', () => {
  let store: RunningSearchStore;
  let holder: Client;
  /** Reads pg_stat_activity outside the lock's transaction (a transaction sees one snapshot of it). */
  let observer: Client;
  const index = uniqueId('gone')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  beforeAll(async () => {
    // A timeout far longer than the test: only the disconnect may stop the statement.
    store = await startSearchStore({ PG_STATEMENT_TIMEOUT_MS: '600000' });
    await call(store.url, 'PUT', `/${index}`, {
      mappings: { properties: { tag: { type: 'keyword' }, views: { type: 'integer' } } },
    });
    await call(store.url, 'PUT', `/${index}/_doc/1?refresh=true`, { tag: 'a', views: 3 });
    holder = new Client({ connectionString: store.config.DATABASE_URL });
    observer = new Client({ connectionString: store.config.DATABASE_URL });
    await Promise.all([holder.connect(), observer.connect()]);
  });
  afterAll(async () => {
    await Promise.all([holder.end(), observer.end()]);
    await store.stop();
  });

  /** Backends of the store waiting on the held lock. */
  async function waitingBackends(): Promise<number> {
    const { rows } = await observer.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'`,
    );
    return rows[0]!.n;
  }

  async function abortWhileWaiting(path: string, body: unknown): Promise<void> {
    await holder.query('BEGIN');
    try {
      // Both forms of doc values: top-level terms read the column-wise ones (migration 0027).
      await holder.query('LOCK TABLE doc_values, doc_value_columns IN ACCESS EXCLUSIVE MODE');
      const controller = new AbortController();
      const request = fetch(`${store.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      await waitFor(async () => (await waitingBackends()) === 1, 10_000);
      controller.abort();
      await request;
      const started = Date.now();
      await waitFor(async () => (await waitingBackends()) === 0, 3_000);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await holder.query('ROLLBACK');
    }
    // The store still answers, on fresh connections.
    const after = await call(store.url, 'POST', path, body);
    expect(after.status).toBe(200);
  }

  const aggregation = { size: 0, aggs: { tags: { terms: { field: 'tag' } } } };

  it('POST /<index>/_search (the path in front of express)', async () => {
    await abortWhileWaiting(`/${index}/_search`, aggregation);
  });

  it('POST /<index>/_search?… (the express route)', async () => {
    await abortWhileWaiting(`/${index}/_search?ignore_unavailable=false`, aggregation);
  });

  it('POST /<index>/_count', async () => {
    await abortWhileWaiting(`/${index}/_count`, { query: { range: { views: { gte: 1 } } } });
  });
});
