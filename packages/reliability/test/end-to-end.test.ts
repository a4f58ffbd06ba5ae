import type { Browser } from 'playwright-core';
import { startStack, type Stack } from '../src/stack';
import { basic, call, es } from '../src/http';
import {
  completeCodeFlow,
  launchChromium,
  startCallbackServer,
  type CallbackServer,
} from '../src/browser-code-flow';

/**
 * Production shape: auth-server and search-store as separate processes from dist/main.js, configured by env
 * only. A user signs in and consents in chromium, the web client exchanges the code, calls search-store with
 * the access token, then the token is revoked and the next search-store call fails within
 * INTROSPECTION_CACHE_MAX_SECONDS.
 */
const CACHE_SECONDS = 2;

describe('end to end: code flow in chromium, search-store with the access token, revocation', () => {
  let stack: Stack;
  let browser: Browser;
  let callback: CallbackServer;

  beforeAll(async () => {
    callback = await startCallbackServer();
    stack = await startStack({ cacheSeconds: CACHE_SECONDS, webRedirectUri: `${callback.origin}/cb` });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await callback?.stop();
  });

  it('signs in, consents, searches with the access token and is refused within the cache bound after revocation', async () => {
    const auth = stack.auth[0]!;
    const search = stack.search[0]!;
    const client = stack.seed.webClient;
    const tokens = await completeCodeFlow({
      context: await browser.newContext(),
      authUrl: auth.url,
      callback,
      client,
      user: stack.seed.user,
      scope: 'openid search.read search.write search.admin',
      state: 'e2e',
    });
    expect(tokens.scope).toBe('openid search.read search.write search.admin');
    const bearer = `Bearer ${tokens.access_token}`;

    expect((await es(search.url, bearer, 'PUT', '/e2e-notes')).status).toBe(200);
    const indexed = await es(search.url, bearer, 'PUT', '/e2e-notes/_doc/1?refresh=true', { title: 'hello' });
    expect(indexed.status).toBe(201);
    const got = await es(search.url, bearer, 'GET', '/e2e-notes/_doc/1');
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ _id: '1', found: true, _source: { title: 'hello' } });

    // RFC 7009 revocation by the client; search-store may still serve from its cache for at most CACHE_SECONDS.
    const revoked = await call(`${auth.url}/revoke`, {
      method: 'POST',
      headers: {
        authorization: basic(client.clientId, client.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: tokens.access_token, token_type_hint: 'access_token' }).toString(),
    });
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    let refusedAfterMs = -1;
    while (Date.now() - revokedAt < (CACHE_SECONDS + 2) * 1000) {
      const reply = await es(search.url, bearer, 'GET', '/e2e-notes/_doc/1');
      if (reply.status === 401) {
        refusedAfterMs = Date.now() - revokedAt;
        expect(reply.json).toMatchObject({ status: 401, error: { type: 'security_exception' } });
        break;
      }
      expect(reply.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    console.log(
      `revoked token refused by search-store after ${refusedAfterMs} ms (bound ${CACHE_SECONDS} s)`,
    );
    expect(refusedAfterMs).toBeGreaterThanOrEqual(0);
    // The bound plus one poll and one request's latency on a loaded CI machine.
    expect(refusedAfterMs).toBeLessThanOrEqual(CACHE_SECONDS * 1000 + 1000);
  }, 90_000);
});
