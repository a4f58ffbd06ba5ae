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
  /** Each attempt comes from the address it names (a proxy in front sets X-Forwarded-For). */
  const from = (address: string) => ({ 'x-forwarded-for': address });
  beforeAll(async () => {
    // The defaults: 5 failures per account and address, 50 per address, a 900 s window.
    server = await startWebServer({ redis, env: { TRUST_PROXY: 'true' } });
    await server.createUser('frank', password);
    await server.createUser('grace', password);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('never locks the owner out: after 6 wrong passwords from elsewhere the owner signs in at once', async () => {
    for (let i = 0; i < 6; i++)
      expect((await attempt(server, 'frank', `wrong-${i}`, from('203.0.113.66'))).status).toBe(400);
    const attacker = await attempt(server, 'frank', 'wrong-again', from('203.0.113.66'));
    expect(attacker.status).toBe(429);
    expect(Number(attacker.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await attacker.text()).toContain('Too many failed sign-in attempts');
    expect(attacker.headers.get('x-frame-options')).toBe('DENY');
    expect(attacker.headers.get('cache-control')).toBe('no-store');
    expect(server.audit()).toContainEqual(
      expect.objectContaining({ event: 'login.throttled', username: 'frank', ip: '203.0.113.66' }),
    );
    expect((await attempt(server, 'FRANK', password, from('192.0.2.10'))).status).toBe(303);
  });

  it('lets the owner who mistyped 6 times in after a bounded delay, doubling with each further failure', async () => {
    const owner = from('192.0.2.20');
    for (let i = 0; i < 6; i++) expect((await attempt(server, 'grace', `typo-${i}`, owner)).status).toBe(400);
    const early = await attempt(server, 'grace', password, owner);
    expect(early.status).toBe(429);
    const wait = Number(early.headers.get('retry-after'));
    expect(wait).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 100));
    expect((await attempt(server, 'grace', password, owner)).status).toBe(303);
    // The success cleared the count: the next typo is free again.
    expect((await attempt(server, 'grace', 'typo', owner)).status).toBe(400);
  });

  it('delays an address that sprays many accounts, without delaying those accounts elsewhere', async () => {
    const sprayer = from('2001:db8:5::1');
    for (let i = 0; i < 51; i++) expect((await attempt(server, `guess-${i}`, 'x', sprayer)).status).toBe(400);
    // Another address in the same /64 is the same source.
    const blocked = await attempt(server, 'frank', password, from('2001:db8:5::ffff'));
    expect(blocked.status).toBe(429);
    expect((await attempt(server, 'frank', password, from('2001:db8:6::1'))).status).toBe(303);
  });
});

describe('login throttling keyed on the socket address', () => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer({ env: { LOGIN_MAX_FAILURES_PER_IP: '8' } });
    await server.createUser('grace', password);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('counts failures per IP across usernames; a forged X-Forwarded-For does not change the key', async () => {
    for (let i = 0; i < 9; i++) {
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
    for (let i = 0; i < 3; i++)
      expect((await attempt(server, `u${i}`, 'x', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(400);
    expect((await attempt(server, 'u9', 'x', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(429);
    expect((await attempt(server, 'u9', 'x', { 'x-forwarded-for': '203.0.113.10' })).status).toBe(400);
    expect(server.audit().find((e) => e.event === 'login.failure')).toMatchObject({ ip: '203.0.113.9' });
  });
});
