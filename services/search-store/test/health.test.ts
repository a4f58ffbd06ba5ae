import { startSearchStore, type RunningSearchStore } from './support/start-search-store';

describe('search-store health and readiness', () => {
  let server: RunningSearchStore;
  beforeAll(async () => {
    server = await startSearchStore();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('reports ready when Postgres answers, with the product header Elasticsearch clients require', async () => {
    const response = await fetch(`${server.url}/ready`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(await response.json()).toEqual({ status: 'ready', checks: { postgres: 'up' } });
  });

  it('exposes request counts and Postgres pool figures on /metrics', async () => {
    await fetch(`${server.url}/ready`);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/ready"[^}]*status="200"[^}]*\} \d+/);
    expect(text).toMatch(/db_pool_connections\{[^}]*state="idle"[^}]*\} \d+/);
  });

  it('applied its migrations to the fresh database', async () => {
    const { rows } = await server.pool.query('SELECT cluster_uuid FROM search_instance');
    expect(rows).toHaveLength(1);
  });
});
