import nock from 'nock';

/** A bearer token the stub below introspects as active with every search-store scope. */
export const TEST_BEARER = 'search-store-test-all-scopes';
/** `Authorization` header value for fetch-based tests; the official clients take `auth: { bearer: TEST_BEARER }`. */
export const TEST_AUTHORIZATION = `Bearer ${TEST_BEARER}`;

/**
 * For suites that test search-store's APIs rather than its authentication: stubs auth-server's
 * /token_info (outbound HTTP, so nock) at `authServerUrl` (a started server's `config.AUTH_SERVER_URL`)
 * so that TEST_BEARER is active with search.read, search.write and search.admin and every other token is
 * inactive. Remove it with nock.cleanAll() in afterAll.
 */
export function stubAuthServer(authServerUrl: string): void {
  nock(authServerUrl)
    .post('/token_info')
    .reply((_uri, body) => {
      const token = new URLSearchParams(String(body)).get('token');
      if (token !== TEST_BEARER) return [200, { active: false }];
      const exp = Math.floor(Date.now() / 1000) + 3600;
      return [200, { active: true, scope: 'search.read search.write search.admin', client_id: 'test', exp }];
    })
    .persist();
}
