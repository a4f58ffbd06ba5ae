import { startWebServer, type WebServer } from './support/start-web-server';
import { inputValue, WebClient } from './support/web-client';

const password = 'the right password!';

async function attempt(
  server: WebServer,
  username: string,
  pass: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const browser = new WebClient(server.url);
  const html = await (await browser.get('/login')).text();
  return browser.post(
    '/login',
    { csrf_token: inputValue(html, 'csrf_token'), return_to: '/account', username, password: pass },
    headers,
  );
}

describe.each([
  ['in memory', false],
  ['on Redis', true],
])('login throttling %s', (_label, redis) => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer({
      redis,
      env: {
        LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
        LOGIN_MAX_FAILURES_PER_IP: '8',
        LOGIN_FAILURE_WINDOW_SECONDS: '600',
      },
    });
    await server.createUser('frank', password);
    await server.createUser('grace', password);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('refuses an account with 429 and Retry-After after 3 failures, even with the right password', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt(server, 'frank', `wrong-${i}`)).status).toBe(400);
    const blocked = await attempt(server, 'FRANK', password);
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(await blocked.text()).toContain('Too many failed sign-in attempts');
    expect(blocked.headers.get('x-frame-options')).toBe('DENY');
    expect(blocked.headers.get('cache-control')).toBe('no-store');
    expect(server.audit()).toContainEqual(
      expect.objectContaining({ event: 'login.throttled', username: 'FRANK' }),
    );
    // Another account from the same address is still allowed (the IP limit is 8).
    expect((await attempt(server, 'grace', password)).status).toBe(303);
  });

  it('counts failures per IP across usernames; a forged X-Forwarded-For does not change the key', async () => {
    // 3 failures were counted for this IP in the previous test; 5 more reach the limit of 8.
    for (let i = 0; i < 5; i++) {
      const response = await attempt(server, `guess-${i}`, 'x', { 'x-forwarded-for': `203.0.113.${i}` });
      expect(response.status).toBe(400);
    }
    const blocked = await attempt(server, 'grace', password, { 'x-forwarded-for': '198.51.100.7' });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    const failures = server.audit().filter((e) => e.event === 'login.failure');
    expect(new Set(failures.map((e) => e.ip))).toEqual(new Set(['127.0.0.1']));
  });
});

describe('login throttling behind a trusted proxy', () => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer({ env: { TRUST_PROXY: 'true', LOGIN_MAX_FAILURES_PER_IP: '2' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('keys on the forwarded address only when TRUST_PROXY is on (the control for the forged-header test)', async () => {
    for (let i = 0; i < 2; i++)
      expect((await attempt(server, `u${i}`, 'x', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(400);
    expect((await attempt(server, 'u9', 'x', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(429);
    expect((await attempt(server, 'u9', 'x', { 'x-forwarded-for': '203.0.113.10' })).status).toBe(400);
    expect(server.audit().find((e) => e.event === 'login.failure')).toMatchObject({ ip: '203.0.113.9' });
  });
});
