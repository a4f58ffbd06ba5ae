import nock from 'nock';
import { createIntrospectionClient, type IntrospectionClientOptions } from '../../src';

const AUTH = 'http://auth-revocation.test';
const START = 1_800_000_000_000;

/** What revocation events do to the introspection client's cache (the stream itself: subscribe-revocations). */
describe('introspection client: dropping revoked answers', () => {
  let clock: number;
  const exp = () => Math.floor(clock / 1000) + 3600;
  const client = (overrides: Partial<IntrospectionClientOptions> = {}) =>
    createIntrospectionClient({
      authServerUrl: AUTH,
      clientId: 'search-store',
      clientSecret: 'rs-secret',
      cacheMaxSeconds: 60,
      now: () => clock,
      ...overrides,
    });
  /** Answers POST /token_info with an active answer per token (jti = `j-<token>`), counting calls. */
  const serve = (claims: Record<string, Record<string, string>> = {}) => {
    const calls: string[] = [];
    nock(AUTH)
      .post('/token_info')
      .reply((_uri, body) => {
        const token = new URLSearchParams(String(body)).get('token') ?? '';
        calls.push(token);
        return [200, { active: true, scope: 'search.read', exp: exp(), jti: `j-${token}`, ...claims[token] }];
      })
      .persist();
    return calls;
  };

  beforeAll(() => {
    nock.disableNetConnect();
  });
  beforeEach(() => {
    clock = START;
  });
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());

  it('drops exactly the answers whose jti an event names, so the next call asks again', async () => {
    const calls = serve();
    const c = client();
    await c.introspect('a');
    await c.introspect('b');
    expect(c.dropRevoked({ jti: ['j-a', 'j-unknown'] })).toBe(1);
    await c.introspect('a');
    await c.introspect('b');
    expect(calls).toEqual(['a', 'b', 'a']);
  });

  it('answers inactive, and does not cache, an active answer naming a jti revoked within the cache bound', async () => {
    const calls = serve();
    const c = client();
    c.dropRevoked({ jti: ['j-a'] });
    expect(await c.introspect('a')).toEqual({ active: false });
    expect(c.cachedCount).toBe(0);
    clock += 61_000; // past the cache bound the tombstone is gone (auth-server is authoritative again)
    expect(await c.introspect('a')).toMatchObject({ active: true });
    expect(calls).toEqual(['a', 'a']);
  });

  it('drops by sub and client_id together, or by either alone', async () => {
    serve({
      u1c1: { sub: 'u1', client_id: 'c1' },
      u1c2: { sub: 'u1', client_id: 'c2' },
      u2c1: { sub: 'u2', client_id: 'c1' },
    });
    const c = client();
    const warm = () => Promise.all(['u1c1', 'u1c2', 'u2c1'].map((t) => c.introspect(t)));
    await warm();
    expect(c.dropRevoked({ jti: [], sub: 'u1', client_id: 'c1' })).toBe(1);
    await warm();
    expect(c.dropRevoked({ sub: 'u1' })).toBe(2);
    await warm();
    expect(c.dropRevoked({ client_id: 'c1' })).toBe(2);
    expect(c.cachedCount).toBe(1);
  });

  it('clear() forgets every answer', async () => {
    const calls = serve();
    const c = client();
    await c.introspect('a');
    c.clear();
    expect(c.cachedCount).toBe(0);
    await c.introspect('a');
    expect(calls).toEqual(['a', 'a']);
  });

  it('does not cache an answer that was in flight when a revocation arrived, and later callers ask afresh', async () => {
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    nock(AUTH)
      .post('/token_info')
      .reply(async (_uri, body) => {
        calls.push(new URLSearchParams(String(body)).get('token') ?? '');
        if (calls.length === 1) await gate;
        return [200, { active: true, exp: exp(), jti: 'j-other' }];
      })
      .persist();
    const c = client();
    const first = c.introspect('a');
    await new Promise((resolve) => setTimeout(resolve, 20));
    c.dropRevoked({ jti: ['j-unrelated'] });
    const second = c.introspect('a'); // not joined to the request from before the event
    release();
    await Promise.all([first, second]);
    expect(calls).toEqual(['a', 'a']);
    expect(c.cachedCount).toBe(1); // the second answer, fetched after the event
  });
});
