import { Client } from 'pg';
import { uniqueId } from '@acme/testkit';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';

describe('PG_STATEMENT_TIMEOUT_MS (issue 17: no request holds a Postgres backend for minutes)', () => {
  let store: RunningSearchStore;
  const index = uniqueId('timeout')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  beforeAll(async () => {
    store = await startSearchStore({ PG_STATEMENT_TIMEOUT_MS: '300' });
    await call(store.url, 'PUT', `/${index}`, { mappings: { properties: { tag: { type: 'keyword' } } } });
    await call(store.url, 'PUT', `/${index}/_doc/1?refresh=true`, { tag: 'a' });
  });
  afterAll(async () => {
    await store.stop();
  });

  const aggregate = () =>
    call(store.url, 'POST', `/${index}/_search`, { size: 0, aggs: { tags: { terms: { field: 'tag' } } } });

  it('answers 429 search_timeout_exception when a statement runs past the timeout, then recovers', async () => {
    // Another session holds the doc values an aggregation reads, so the search's statement waits.
    const holder = new Client({ connectionString: store.config.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      // Both forms of doc values: top-level terms read the column-wise ones (migration 0027).
      await holder.query('LOCK TABLE doc_values, doc_value_columns IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const response = await aggregate();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(response.status).toBe(429);
      expect(response.json).toEqual({
        error: {
          root_cause: [{ type: 'search_timeout_exception', reason: 'Time exceeded' }],
          type: 'search_timeout_exception',
          reason: 'Time exceeded',
        },
        status: 429,
      });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    const after = await aggregate();
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ aggregations: { tags: { buckets: [{ key: 'a', doc_count: 1 }] } } });
  });
});
