import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';

describe('auth-server health, readiness and metrics', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers /health with ok and echoes a well-formed x-request-id', async () => {
    const response = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('abc-123');
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('replaces a malformed x-request-id with a generated one', async () => {
    const response = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'bad id\twith tab' } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports ready when Postgres answers', async () => {
    const response = await fetch(`${server.url}/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', checks: { postgres: 'up' } });
  });

  it('exposes per-route request counts in Prometheus format', async () => {
    await fetch(`${server.url}/health`);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(
      /http_requests_total\{[^}]*method="GET"[^}]*route="\/health"[^}]*status="200"[^}]*\} \d+/,
    );
    expect(text).toContain('http_request_duration_seconds_bucket');
    expect(text).toMatch(/db_pool_connections\{[^}]*state="total"[^}]*\} \d+/);
    expect(text).toContain('# HELP introspection_cache_lookups_total');
  });

  it('applied its migrations to the fresh database', async () => {
    const { rows } = await server.pool.query('SELECT name FROM auth_migrations ORDER BY id');
    expect(rows.map((r: { name: string }) => r.name)).toContain('0001_baseline');
  });
});
