import type { Express } from 'express';
import nock from 'nock';
import { call } from '../support/http';
import { buildIdleApp, registeredRoutes, type RegisteredRoute } from '../support/registered-routes';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { stubTokenScopes } from '../support/stub-token-scopes';

const AUTH = 'http://auth-server.test';
const SAMPLE: Record<string, string> = { index: 'books', id: '1', name: 'current', target: 'books-copy' };

/** A route pattern with sample values: `/:index/_doc/:id` → `/books/_doc/1`. */
const concrete = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => SAMPLE[name] ?? name);

/** Letter-case variants of a path: all upper, each `_api` capitalised or upper-cased, names capitalised. */
function caseVariants(path: string): string[] {
  const variants = [
    path.toUpperCase(),
    path.replace(/\/_([a-z])/g, (_, c: string) => `/_${c.toUpperCase()}`),
    path.replace(/\/_([a-z_]+)/g, (_, api: string) => `/_${api.toUpperCase()}`),
    path.replace(/\/([a-z])/g, (_, c: string) => `/${c.toUpperCase()}`),
  ];
  return [...new Set(variants)].filter((v) => v !== path);
}

const noHandler = (path: string, method: string) => ({
  error: `no handler found for uri [${path}] and method [${method}]`,
  status: 400,
});

/**
 * Paths are case-sensitive, as in Elasticsearch (issue 17): with a search.read token, a case variant of a
 * write or admin route reaches no handler (400, ES's answer for an unknown path) or that route's own scope
 * check (403), never the handler. Production authentication, auth-server's /token_info stubbed with nock.
 */
describe('letter case in paths', () => {
  let server: RunningSearchStore;
  let idle: { app: Express; close(): Promise<void> } | undefined;
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
        ['writer', 'search.write'],
        ['admin', 'search.read search.write search.admin'],
      ]),
    ),
  );
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    await Promise.all([server.stop(), idle?.close()]);
    nock.enableNetConnect();
  });

  it('answers GET /_Cluster/settings and GET /books/_Refresh for a reader as ES does: no handler', async () => {
    expect((await call(server.url, 'PUT', '/books', undefined, as('admin'))).status).toBe(200);
    const cluster = await call(server.url, 'GET', '/_Cluster/settings', undefined, as('reader'));
    expect({ status: cluster.status, body: cluster.json }).toEqual({
      status: 400,
      body: noHandler('/_Cluster/settings', 'GET'),
    });
    const refresh = await call(server.url, 'GET', '/books/_Refresh', undefined, as('reader'));
    expect({ status: refresh.status, body: refresh.json }).toEqual({
      status: 400,
      body: noHandler('/books/_Refresh', 'GET'),
    });
  });

  it('never lets a reader reach a write or admin handler through a case variant', async () => {
    idle = buildIdleApp();
    const guarded: RegisteredRoute[] = registeredRoutes(idle.app).routes.filter(
      (r) => r.access && r.access.scope !== 'search.read',
    );
    expect(guarded.length).toBeGreaterThan(25);
    const reached: string[] = [];
    for (const route of guarded) {
      for (const path of caseVariants(concrete(route.path))) {
        const response = await call(server.url, route.method, path, undefined, as('reader'));
        const refused =
          (response.status === 403 &&
            (response.json as { error?: { type?: string } }).error?.type === 'security_exception') ||
          (response.status === 400 &&
            JSON.stringify(response.json) === JSON.stringify(noHandler(path, route.method)));
        if (!refused) reached.push(`${route.method} ${path} → ${response.status}`);
      }
    }
    expect(reached).toEqual([]);
  });

  it('checks the search scope on the lean search path too', async () => {
    const response = await call(server.url, 'POST', '/books/_search', {}, as('writer'));
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({
      error: {
        type: 'security_exception',
        reason:
          'action [indices:data/read/search] is unauthorized for user [writer] with effective roles ' +
          '[search.write] on indices [books], this action is granted by the scope [search.read]',
      },
    });
    const variant = await call(server.url, 'POST', '/books/_Search', {}, as('reader'));
    expect({ status: variant.status, body: variant.json }).toEqual({
      status: 400,
      body: noHandler('/books/_Search', 'POST'),
    });
  });
});
