import nock from 'nock';
import { createIntrospectionClient, IntrospectionError, type IntrospectionClientOptions } from '../../src';

const AUTH = 'http://auth.test';
const START = 1_800_000_000_000;

describe('introspection client', () => {
  let clock: number;
  const seconds = () => Math.floor(clock / 1000);
  const client = (overrides: Partial<IntrospectionClientOptions> = {}) =>
    createIntrospectionClient({
      authServerUrl: AUTH,
      clientId: 'search-store',
      clientSecret: 'rs-secret',
      cacheMaxSeconds: 60,
      now: () => clock,
      ...overrides,
    });
  /** Answers every POST /token_info with `body()` and counts the calls. */
  const serve = (body: () => object, status = 200) => {
    const calls = { count: 0 };
    nock(AUTH)
      .post('/token_info')
      .reply(() => {
        calls.count += 1;
        return [status, body()];
      })
      .persist();
    return calls;
  };

  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
  });
  beforeEach(() => {
    clock = START;
  });
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());

  it('posts the token as a form with form-url-encoded Basic credentials (RFC 6749 §2.3.1)', async () => {
    let seen: { authorization?: string; contentType?: string; body?: unknown } = {};
    nock(AUTH)
      .post('/token_info')
      .reply(function (_uri, body) {
        seen = {
          authorization: this.req.headers.authorization,
          contentType: this.req.headers['content-type'],
          body,
        };
        return [200, { active: true, scope: 'search.read', exp: seconds() + 600 }];
      });
    const answer = await client({ clientId: 'rs:one %+é', clientSecret: 'p@ss w:rd/&=' }).introspect(
      'tok/en+1=',
    );
    expect(answer).toEqual({ active: true, scope: 'search.read', exp: seconds() + 600 });
    const expected = Buffer.from('rs%3Aone+%25%2B%C3%A9:p%40ss+w%3Ard%2F%26%3D').toString('base64');
    expect(seen.authorization).toBe(`Basic ${expected}`);
    expect(seen.contentType).toBe('application/x-www-form-urlencoded');
    expect(seen.body).toBe('token=tok%2Fen%2B1%3D');
  });

  it('serves a cached active answer until the token expires, then asks again', async () => {
    const calls = serve(() => ({ active: true, scope: 'search.read', exp: Math.floor(START / 1000) + 10 }));
    const rs = client({ cacheMaxSeconds: 60 });
    await rs.introspect('t1');
    clock = START + 9_999;
    await rs.introspect('t1');
    expect(calls.count).toBe(1);
    clock = START + 10_000;
    await rs.introspect('t1');
    expect(calls.count).toBe(2);
  });

  it('bounds the cache time by the configured maximum when exp is further away', async () => {
    const calls = serve(() => ({ active: true, exp: seconds() + 3600 }));
    const rs = client({ cacheMaxSeconds: 30 });
    await rs.introspect('t1');
    clock = START + 29_999;
    await rs.introspect('t1');
    expect(calls.count).toBe(1);
    clock = START + 30_000;
    await rs.introspect('t1');
    expect(calls.count).toBe(2);
  });

  it('does not cache an active answer whose exp is already reached', async () => {
    const calls = serve(() => ({ active: true, exp: seconds() }));
    const rs = client();
    await rs.introspect('t1');
    await rs.introspect('t1');
    expect(calls.count).toBe(2);
    expect(rs.cachedCount).toBe(0);
  });

  it('caches an inactive answer only briefly', async () => {
    const calls = serve(() => ({ active: false }));
    const rs = client({ inactiveCacheSeconds: 5 });
    expect(await rs.introspect('gone')).toEqual({ active: false });
    clock = START + 4_999;
    await rs.introspect('gone');
    expect(calls.count).toBe(1);
    clock = START + 5_000;
    await rs.introspect('gone');
    expect(calls.count).toBe(2);
  });

  it('asks the server every time when the cache is off (cacheMaxSeconds 0)', async () => {
    const calls = serve(() => ({ active: true, exp: seconds() + 600 }));
    const rs = client({ cacheMaxSeconds: 0 });
    await rs.introspect('t1');
    await rs.introspect('t1');
    await rs.introspect('t1');
    expect(calls.count).toBe(3);
    expect(rs.cachedCount).toBe(0);
  });

  it('keeps at most maxEntries answers, dropping the least recently used', async () => {
    const calls = serve(() => ({ active: true, exp: seconds() + 600 }));
    const rs = client({ maxEntries: 2 });
    await rs.introspect('a');
    await rs.introspect('b');
    await rs.introspect('c');
    expect(rs.cachedCount).toBe(2);
    await rs.introspect('c');
    expect(calls.count).toBe(3);
    await rs.introspect('a');
    expect(calls.count).toBe(4);
  });

  it('sends one request for concurrent calls with the same token (single-flight)', async () => {
    const calls = { count: 0 };
    nock(AUTH)
      .post('/token_info')
      .delay(30)
      .reply(() => {
        calls.count += 1;
        return [200, { active: true, scope: 'search.read', exp: seconds() + 600 }];
      })
      .persist();
    const rs = client({ cacheMaxSeconds: 0 });
    const [first, second] = await Promise.all([rs.introspect('same'), rs.introspect('same')]);
    expect(calls.count).toBe(1);
    expect(first).toEqual(second);
    await rs.introspect('same');
    expect(calls.count).toBe(2);
  });

  it('fails closed with a timeout error when the server is too slow', async () => {
    nock(AUTH).post('/token_info').delay(500).reply(200, { active: true });
    const failure = client({ timeoutMs: 50 }).introspect('t1');
    await expect(failure).rejects.toBeInstanceOf(IntrospectionError);
    await expect(failure).rejects.toMatchObject({ failure: 'timeout' });
  });

  it('fails closed when the server answers 5xx, and does not cache the failure', async () => {
    const calls = serve(() => ({ error: 'server_error' }), 503);
    const rs = client();
    await expect(rs.introspect('t1')).rejects.toMatchObject({ failure: 'server_error', status: 503 });
    await expect(rs.introspect('t1')).rejects.toMatchObject({ failure: 'server_error' });
    expect(calls.count).toBe(2);
  });

  it('fails closed when nothing listens at the server address', async () => {
    const rs = client({ authServerUrl: 'http://127.0.0.1:1' });
    await expect(rs.introspect('t1')).rejects.toMatchObject({ failure: 'unreachable' });
  });

  it('fails closed when the server refuses our credentials (401)', async () => {
    serve(() => ({ error: 'invalid_client', error_description: 'bad credentials' }), 401);
    await expect(client().introspect('t1')).rejects.toMatchObject({
      failure: 'credentials_rejected',
      status: 401,
    });
  });

  it('fails closed on an answer that is not an RFC 7662 response', async () => {
    serve(() => ({ active: 'yes' }));
    await expect(client().introspect('t1')).rejects.toMatchObject({ failure: 'malformed_response' });
  });
});
