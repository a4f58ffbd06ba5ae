import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { startStack, type Stack } from '../src/stack';
import { basic, call, es } from '../src/http';

/**
 * Production shape: auth-server and search-store as separate processes from dist/main.js, configured by env
 * only. A user signs in and consents in chromium, the web client exchanges the code, calls search-store with
 * the access token, then the user's token is revoked and the next search-store call fails within
 * INTROSPECTION_CACHE_MAX_SECONDS.
 */
const CACHE_SECONDS = 2;

describe('end to end: code flow in chromium, search-store with the access token, revocation', () => {
  let stack: Stack;
  let browser: Browser;
  let callback: Server;
  let origin: string;
  const received: URLSearchParams[] = [];

  beforeAll(async () => {
    callback = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/cb') received.push(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>callback received</h1>');
    });
    callback.listen(0, '127.0.0.1');
    await new Promise((resolve) => callback.once('listening', resolve));
    origin = `http://127.0.0.1:${(callback.address() as AddressInfo).port}`;
    stack = await startStack({ cacheSeconds: CACHE_SECONDS, webRedirectUri: `${origin}/cb` });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    callback?.closeAllConnections();
    await new Promise((resolve) => callback?.close(resolve));
  });

  it('signs in, consents, searches with the access token and is refused within the cache bound after revocation', async () => {
    const auth = stack.auth[0]!;
    const search = stack.search[0]!;
    const client = stack.seed.webClient;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const page = await (await browser.newContext()).newPage();
    await page.goto(
      `${auth.url}/authorize?${new URLSearchParams({
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        scope: 'openid search.read search.write search.admin',
        state: 'e2e',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })}`,
    );
    await page.getByLabel('Username').fill(stack.seed.user.username);
    await page.getByLabel('Password').fill(stack.seed.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${origin}/cb?**`);
    const query = received.at(-1)!;
    expect(query.get('state')).toBe('e2e');
    const exchanged = await call(`${auth.url}/token`, {
      method: 'POST',
      headers: {
        authorization: basic(client.clientId, client.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: query.get('code')!,
        redirect_uri: client.redirectUri,
        code_verifier: verifier,
      }).toString(),
    });
    expect(exchanged.status).toBe(200);
    const accessToken = (exchanged.json as { access_token: string }).access_token;
    const bearer = `Bearer ${accessToken}`;

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
      body: new URLSearchParams({ token: accessToken, token_type_hint: 'access_token' }).toString(),
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
    expect(refusedAfterMs).toBeLessThanOrEqual(CACHE_SECONDS * 1000 + 500);
  }, 90_000);
});
