import nock from 'nock';
import { createServiceAccountTokens, ServiceAccountError } from '../../src/auth/service-account-tokens';

const AUTH = 'http://auth-server.test';
const START = 1_800_000_000_000;

describe('service-account tokens (client_credentials)', () => {
  let clock: number;
  const tokens = (timeoutMs = 500) =>
    createServiceAccountTokens({ authServerUrl: AUTH, timeoutMs, now: () => clock });
  /** Answers POST /token with a fresh token each time; counts the calls. */
  const issue = (expiresIn: number | undefined = 300) => {
    const calls = { count: 0 };
    nock(AUTH)
      .post('/token', 'grant_type=client_credentials')
      .reply(() => {
        calls.count += 1;
        return [200, { access_token: `at-${calls.count}`, token_type: 'Bearer', expires_in: expiresIn }];
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

  it('asks for a client_credentials token with client_secret_basic, form-url-encoding the credentials', async () => {
    let authorization: string | undefined;
    nock(AUTH)
      .post('/token', 'grant_type=client_credentials')
      .reply(function () {
        authorization = this.req.headers.authorization;
        return [200, { access_token: 'at-1', token_type: 'bearer', expires_in: 300 }];
      });
    expect(await tokens().tokenFor('svc ingest', 'p:w%d')).toBe('at-1');
    expect(authorization).toBe(`Basic ${Buffer.from('svc+ingest:p%3Aw%25d').toString('base64')}`);
  });

  it('reuses the token until a tenth of its lifetime (at most 30 s) before expiry', async () => {
    const calls = issue(300);
    const accounts = tokens();
    expect(await accounts.tokenFor('svc', 'secret')).toBe('at-1');
    clock = START + 269_999;
    expect(await accounts.tokenFor('svc', 'secret')).toBe('at-1');
    clock = START + 270_000;
    expect(await accounts.tokenFor('svc', 'secret')).toBe('at-2');
    expect(calls.count).toBe(2);
  });

  it('keeps a token per credentials: another password gets its own token request', async () => {
    const calls = issue();
    const accounts = tokens();
    await accounts.tokenFor('svc', 'secret');
    await accounts.tokenFor('svc', 'other');
    expect(calls.count).toBe(2);
  });

  it('sends one token request for concurrent callers with the same credentials', async () => {
    const calls = { count: 0 };
    nock(AUTH)
      .post('/token')
      .delay(30)
      .reply(() => {
        calls.count += 1;
        return [200, { access_token: 'at-1', token_type: 'Bearer', expires_in: 300 }];
      })
      .persist();
    const accounts = tokens();
    const results = await Promise.all([accounts.tokenFor('svc', 's'), accounts.tokenFor('svc', 's')]);
    expect(results).toEqual(['at-1', 'at-1']);
    expect(calls.count).toBe(1);
  });

  it('asks again after forget (the token was found inactive)', async () => {
    const calls = issue();
    const accounts = tokens();
    await accounts.tokenFor('svc', 'secret');
    accounts.forget('svc', 'secret');
    expect(await accounts.tokenFor('svc', 'secret')).toBe('at-2');
    expect(calls.count).toBe(2);
  });

  it.each([400, 401])(
    'reports refused credentials when /token answers %i and remembers the refusal for 5 s',
    async (status) => {
      const calls = { count: 0 };
      nock(AUTH)
        .post('/token')
        .reply(() => {
          calls.count += 1;
          return [status, { error: 'invalid_client' }];
        })
        .persist();
      const accounts = tokens();
      await expect(accounts.tokenFor('svc', 'bad')).rejects.toMatchObject({ failure: 'rejected' });
      clock = START + 4_999;
      await expect(accounts.tokenFor('svc', 'bad')).rejects.toBeInstanceOf(ServiceAccountError);
      expect(calls.count).toBe(1);
      clock = START + 5_000;
      await expect(accounts.tokenFor('svc', 'bad')).rejects.toMatchObject({ failure: 'rejected' });
      expect(calls.count).toBe(2);
    },
  );

  it('does not let a remembered refusal block the right password', async () => {
    nock(AUTH).post('/token').basicAuth({ user: 'svc', pass: 'bad' }).reply(401, { error: 'invalid_client' });
    const calls = issue();
    const accounts = tokens();
    await expect(accounts.tokenFor('svc', 'bad')).rejects.toMatchObject({ failure: 'rejected' });
    expect(await accounts.tokenFor('svc', 'good')).toBe('at-1');
    expect(calls.count).toBe(1);
  });

  it('reports auth-server unavailable on a 5xx', async () => {
    nock(AUTH).post('/token').reply(502, 'bad gateway');
    await expect(tokens().tokenFor('svc', 's')).rejects.toMatchObject({
      failure: 'unavailable',
      message: 'auth server answered 502 to the token request',
    });
  });

  it('reports auth-server unavailable when nothing listens', async () => {
    const accounts = createServiceAccountTokens({ authServerUrl: 'http://127.0.0.1:1' });
    await expect(accounts.tokenFor('svc', 's')).rejects.toMatchObject({
      failure: 'unavailable',
      message: 'auth server is unreachable',
    });
  });

  it('reports auth-server unavailable after the timeout', async () => {
    nock(AUTH).post('/token').delay(300).reply(200, { access_token: 'late', token_type: 'Bearer' });
    await expect(tokens(50).tokenFor('svc', 's')).rejects.toMatchObject({
      failure: 'unavailable',
      message: 'auth server did not answer within 50 ms',
    });
  });

  it('reports auth-server unavailable when the answer is not a bearer token', async () => {
    nock(AUTH).post('/token').reply(200, { access_token: 'x', token_type: 'DPoP' });
    await expect(tokens().tokenFor('svc', 's')).rejects.toMatchObject({ failure: 'unavailable' });
  });

  it('vouches for the end user as a resource server so auth-server counts their failures, not ours', async () => {
    let headers: Record<string, unknown> = {};
    nock(AUTH)
      .post('/token', 'grant_type=client_credentials')
      .reply(function () {
        headers = this.req.headers;
        return [429, { error: 'too_many_requests' }, { 'retry-after': '4' }];
      });
    const relayed = createServiceAccountTokens({
      authServerUrl: AUTH,
      relay: { clientId: 'search-store', clientSecret: 'rs secret' },
      now: () => clock,
    });
    // A throttled end user is refused like wrong credentials (401), never as auth-server being down (503).
    await expect(relayed.tokenFor('svc', 'guess', '2001:db8::5')).rejects.toMatchObject({
      failure: 'rejected',
    });
    expect(headers['resource-server-authorization']).toBe(
      `Basic ${Buffer.from('search-store:rs+secret').toString('base64')}`,
    );
    expect(headers.forwarded).toBe('for="[2001:db8::5]"');
  });
});
