import nock from 'nock';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';
import { stubTokenScopes } from '../support/stub-token-scopes';

const AUTH = 'http://auth-server.test';
const INDEX = 'logs-2026-11-25-application-frontend';

/**
 * Wildcard patterns built to make a backtracking matcher explode (issue 17), sent over HTTP to search-store
 * with the production authentication (auth-server's /token_info stubbed with nock): the answer must come at
 * once and the service must keep answering.
 */
describe('hostile wildcard patterns', () => {
  let server: RunningSearchStore;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    server = await startSearchStore({ AUTH_SERVER_URL: AUTH }, { auth: 'real' });
  });
  beforeEach(() =>
    stubTokenScopes(
      AUTH,
      new Map([
        ['reader', 'search.read'],
        ['admin', 'search.read search.write search.admin'],
      ]),
    ),
  );
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    await server.stop();
    nock.enableNetConnect();
  });

  it('answers a filter_path bomb without credentials with an unfiltered 401 at once, and keeps serving', async () => {
    await call(server.url, 'GET', '/health'); // a warm connection, so the timing below is the request's own
    const started = performance.now();
    const response = await call(server.url, 'GET', `/?filter_path=error.r${'*'.repeat(26)}z`);
    const elapsed = performance.now() - started;
    expect(response.status).toBe(401);
    // Elasticsearch never filters an error body (AbstractRestChannel#newErrorBuilder).
    expect(response.json).toMatchObject({
      error: {
        type: 'security_exception',
        reason: expect.stringContaining('missing authentication') as string,
      },
      status: 401,
    });
    // A backtracking matcher would try ~10^9 ways to place 26 stars over a short key: seconds at least.
    // The bound is generous because CI's two cores run two test files at once (it measured 118 ms once).
    expect(elapsed).toBeLessThan(1000);
    expect((await call(server.url, 'GET', '/health')).status).toBe(200);
  });

  it('filters a success body with a many-star filter_path in linear time', async () => {
    const response = await call(
      server.url,
      'GET',
      `/?filter_path=version.n${'*'.repeat(200)}x,version.n${'*'.repeat(200)}r`,
      undefined,
      as('reader'),
    );
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ version: { number: expect.any(String) as string } });
  });

  it('resolves a 200-star index pattern for a read token quickly, to no index', async () => {
    const created = await call(server.url, 'PUT', `/${INDEX}`, undefined, as('admin'));
    expect(created.status).toBe(200);
    const pattern = `l${'*'.repeat(200)}Z`;
    const started = performance.now();
    const response = await call(server.url, 'GET', `/${pattern}/_search`, undefined, as('reader'));
    // A sanity bound, not a micro-timing: the backtracking matcher took minutes here.
    expect(performance.now() - started).toBeLessThan(2000);
    // ES: a wildcard that matches nothing is no index at all (allow_no_indices defaults to true).
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ hits: { total: { value: 0 }, hits: [] } });
    expect((await call(server.url, 'GET', '/health')).status).toBe(200);
  });
});
