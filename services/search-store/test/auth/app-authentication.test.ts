import { Client as Client8, errors as errors8 } from 'es8';
import { Client as Client9, errors as errors9 } from 'es9';
import nock from 'nock';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { stubAuthServer, TEST_AUTHORIZATION } from '../support/stub-auth-server';

const AUTH = 'http://auth-server.test';

/**
 * The authentication middleware as installed in createApp, seen through the official clients: search-store
 * on port 0 against a fresh Postgres, auth-server's /token_info and /token stubbed with nock.
 */
describe('search-store app authentication', () => {
  let server: RunningSearchStore;
  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    server = await startSearchStore({ AUTH_SERVER_URL: AUTH }, { auth: 'real' });
  });
  beforeEach(() => {
    nock(AUTH)
      .post('/token_info')
      .reply((_uri, body) => {
        const token = new URLSearchParams(String(body)).get('token');
        const exp = Math.floor(Date.now() / 1000) + 600;
        return [
          200,
          token === 'reader'
            ? { active: true, scope: 'search.read', username: 'bob', exp }
            : { active: false },
        ];
      })
      .persist();
    nock(AUTH).post('/token').reply(401, { error: 'invalid_client' }).persist();
  });
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    await server.stop();
    nock.enableNetConnect();
  });

  it.each(['/health', '/ready', '/metrics'])('keeps %s open without credentials', async (path) => {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(200);
  });

  it('answers 401 security_exception to a request without credentials, with the product header', async () => {
    const response = await fetch(`${server.url}/logs/_search`);
    expect(response.status).toBe(401);
    expect(response.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(response.headers.get('www-authenticate')).toBe(
      'Basic realm="security", charset="UTF-8", Bearer realm="security"',
    );
    expect(await response.json()).toMatchObject({
      error: {
        type: 'security_exception',
        reason: 'missing authentication credentials for REST request [/logs/_search]',
      },
      status: 401,
    });
  });

  type Auth = { username: string; password: string } | { bearer: string } | undefined;
  interface Calls {
    search(): Promise<unknown>;
    get(): Promise<unknown>;
    createIndex(): Promise<unknown>;
    close(): Promise<void>;
  }
  const v8 = (auth: Auth): Calls => {
    const client = new Client8({ node: server.url, maxRetries: 0, ...(auth ? { auth } : {}) });
    return {
      search: () => client.search({ index: 'logs' }),
      get: () => client.get({ index: 'logs', id: '1' }),
      createIndex: () => client.indices.create({ index: 'logs' }),
      close: () => client.close(),
    };
  };
  const v9 = (auth: Auth): Calls => {
    const client = new Client9({ node: server.url, maxRetries: 0, ...(auth ? { auth } : {}) });
    return {
      search: () => client.search({ index: 'logs' }),
      get: () => client.get({ index: 'logs', id: '1' }),
      createIndex: () => client.indices.create({ index: 'logs' }),
      close: () => client.close(),
    };
  };

  it.each([
    ['v8', v8, errors8.ResponseError],
    ['v9', v9, errors9.ResponseError],
  ] as const)(
    'gives the %s client a ResponseError it can read for 401 and 403',
    async (_name, connect, ResponseError) => {
      const anonymous = connect(undefined);
      const unauthenticated = await anonymous.search().catch((error: unknown) => error);
      expect(unauthenticated).toBeInstanceOf(ResponseError);
      expect(unauthenticated).toMatchObject({
        statusCode: 401,
        body: { error: { type: 'security_exception' } },
      });

      const badAccount = connect({ username: 'svc', password: 'nope' });
      const refused = await badAccount.get().catch((error: unknown) => error);
      expect(refused).toMatchObject({
        statusCode: 401,
        body: { error: { reason: 'unable to authenticate user [svc] for REST request [/logs/_doc/1]' } },
      });

      const reader = connect({ bearer: 'reader' });
      const forbidden = await reader.createIndex().catch((error: unknown) => error);
      expect(forbidden).toMatchObject({
        statusCode: 403,
        body: {
          error: {
            type: 'security_exception',
            reason:
              'action [indices:admin/create] is unauthorized for user [bob] with effective roles [search.read] ' +
              'on indices [logs], this action is granted by the scope [search.admin]',
          },
          status: 403,
        },
      });
      await Promise.all([anonymous.close(), badAccount.close(), reader.close()]);
    },
  );

  it('lets the test stub token through to the API layer', async () => {
    nock.cleanAll();
    stubAuthServer(AUTH);
    const passed = await fetch(`${server.url}/_rs_auth_probe`, {
      headers: { authorization: TEST_AUTHORIZATION },
    });
    expect([401, 403, 503]).not.toContain(passed.status);
  });
});
