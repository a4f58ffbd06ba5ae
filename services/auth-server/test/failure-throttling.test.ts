import { testRedisUrl } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, postForm } from './support/oauth-helpers';

/**
 * Failed client and resource-server authentications throttle the source that failed, never the id that
 * was tried: correct credentials always pass (issue 17, item 5).
 */
describe.each([
  ['in memory', {}],
  ['on Redis', { REDIS_URL: testRedisUrl() }],
])('failure throttling %s', (_label, env) => {
  let server: RunningAuthServer;
  const start = async (extra: Record<string, string> = {}) => {
    server = await startAuthServer({ ...env, ...extra });
    return server;
  };
  afterEach(async () => {
    await server?.stop();
  });

  it('keeps 200 for the right resource-server secret after 40 wrong ones from the same address, which get 429', async () => {
    await start();
    const rs = await createResourceServer(server, ['search.read']);
    const wrong = [];
    for (let i = 0; i < 40; i += 1)
      wrong.push(
        await postForm(
          `${server.url}/token_info`,
          { token: 'x' },
          { authorization: basic(rs.id, `guess-${i}`) },
        ),
      );
    expect(wrong.slice(0, 30).every((r) => r.status === 401)).toBe(true);
    const throttled = wrong[39]!;
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(throttled.body).toEqual({
      error: 'too_many_requests',
      error_description: 'too many failed attempts from this address',
    });
    const right = await postForm(
      `${server.url}/token_info`,
      { token: 'x' },
      { authorization: basic(rs.id, rs.secret) },
    );
    expect(right.status).toBe(200);
    expect(right.body).toEqual({ active: false });
  });

  it('keeps 200 at /token for the right client secret after 40 wrong ones', async () => {
    await start();
    const client = await createClient(server, { grant_types: ['client_credentials'] });
    const form = { grant_type: 'client_credentials' };
    let last = 0;
    for (let i = 0; i < 40; i += 1)
      last = (await postForm(`${server.url}/token`, form, { authorization: basic(client.clientId, `x${i}`) }))
        .status;
    expect(last).toBe(429);
    const right = await postForm(`${server.url}/token`, form, {
      authorization: basic(client.clientId, client.secret!),
    });
    expect(right.status).toBe(200);
  });

  it('counts failures a resource server relays against the end user it names, not against the relay', async () => {
    await start({ AUTH_FAILURES_PER_MINUTE: '3' });
    const rs = await createResourceServer(server, ['search.read']);
    const relayed = (id: string, endUser: string, relaySecret = rs.secret) => ({
      authorization: basic(id, 'wrong'),
      'resource-server-authorization': basic(rs.id, relaySecret),
      forwarded: `for="${endUser}"`,
    });
    const form = { grant_type: 'client_credentials' };
    const statuses = [];
    for (let i = 0; i < 5; i += 1)
      statuses.push(
        (await postForm(`${server.url}/token`, form, relayed(`user-${i}`, '203.0.113.5'))).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Another end user through the same relay, and the relay's own address, are not throttled.
    expect((await postForm(`${server.url}/token`, form, relayed('u', '[2001:db8::7]'))).status).toBe(401);
    expect((await postForm(`${server.url}/token`, form, { authorization: basic('u', 'wrong') })).status).toBe(
      401,
    );
  });

  it('ignores Forwarded from a caller that is not an authenticated resource server', async () => {
    await start({ AUTH_FAILURES_PER_MINUTE: '3' });
    const rs = await createResourceServer(server, ['search.read']);
    const form = { grant_type: 'client_credentials' };
    const statuses = [];
    for (let i = 0; i < 5; i += 1) {
      const headers = {
        authorization: basic('u', 'wrong'),
        forwarded: `for=198.51.100.${i}`,
        ...(i % 2 ? { 'resource-server-authorization': basic(rs.id, 'not-its-secret') } : {}),
      };
      statuses.push((await postForm(`${server.url}/token`, form, headers)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it('throttles a guess spread over many forwarded addresses per address, so the owner keeps working', async () => {
    await start({ AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'true' });
    const rs = await createResourceServer(server, ['search.read']);
    for (let i = 0; i < 20; i += 1) {
      const headers = { authorization: basic(rs.id, `guess-${i}`), 'x-forwarded-for': `198.51.100.${i}` };
      expect((await postForm(`${server.url}/token_info`, { token: 'x' }, headers)).status).toBe(401);
    }
    const owner = { authorization: basic(rs.id, rs.secret), 'x-forwarded-for': '192.0.2.1' };
    expect((await postForm(`${server.url}/token_info`, { token: 'x' }, owner)).status).toBe(200);
  });
});
