import { PassThrough } from 'node:stream';
import { createLogger } from '@acme/common';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, postForm } from './support/oauth-helpers';

describe('POST /token request and client-authentication rules (RFC 6749 §2.3, §3.2, §5.2)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  const logLines: string[] = [];
  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString().split('\n').filter(Boolean)));
    server = await startAuthServer(
      { AUTH_FAILURES_PER_MINUTE: '1000' },
      { logger: createLogger({ service: 'auth-server', stream }) },
    );
    client = await createClient(server);
    await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });
  const auth = () => ({ authorization: basic(client.clientId, client.secret!) });

  it('refuses the password grant with unsupported_grant_type (RFC 9700 §2.4)', async () => {
    const response = await postForm(
      `${server.url}/token`,
      { grant_type: 'password', username: 'a', password: 'b' },
      auth(),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'grant_type password is not supported',
    });
  });

  it('requires grant_type', async () => {
    const response = await postForm(`${server.url}/token`, {}, auth());
    expect(response.body).toEqual({ error: 'invalid_request', error_description: 'grant_type is required' });
  });

  it('accepts client_secret_post', async () => {
    const response = await postForm(`${server.url}/token`, {
      grant_type: 'client_credentials',
      scope: 'search.read',
      client_id: client.clientId,
      client_secret: client.secret!,
    });
    expect(response.status).toBe(200);
    expect(response.body.token_type).toBe('Bearer');
  });

  it('form-url-decodes client_secret_basic credentials (RFC 6749 §2.3.1)', async () => {
    const id = client.clientId.replace('_', '%5F');
    const header = `Basic ${Buffer.from(`${id}:${client.secret}`).toString('base64')}`;
    const response = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      { authorization: header },
    );
    expect(response.status).toBe(200);
  });

  it('refuses two authentication methods at once', async () => {
    const response = await postForm(
      `${server.url}/token`,
      {
        grant_type: 'client_credentials',
        client_secret: client.secret!,
      },
      auth(),
    );
    expect(response.body).toEqual({
      error: 'invalid_request',
      error_description: 'use exactly one client authentication method',
    });
  });

  it.each([
    ['no credentials', {}, {}],
    ['a wrong secret', {}, { authorization: basic('x', 'y') }],
    ['a wrong post secret', { client_id: 'nobody', client_secret: 'nope' }, {}],
  ])('answers %s with 401 invalid_client and WWW-Authenticate: Basic', async (_label, form, headers) => {
    const response = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', ...form },
      headers,
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="auth-server", charset="UTF-8"');
    expect(response.body.error).toBe('invalid_client');
  });

  it('logs an audit event for a failed client authentication without the secret', async () => {
    await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, 'not-the-secret-123') },
    );
    const line = logLines.find(
      (l) => l.includes('"audit":"client_auth_failure"') && l.includes(client.clientId),
    );
    expect(line).toBeDefined();
    expect(logLines.join('\n')).not.toContain('not-the-secret-123');
    expect(logLines.join('\n')).not.toContain(client.secret!);
  });

  it('logs token issuance as an audit event without the token', async () => {
    const response = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      auth(),
    );
    expect(logLines.some((l) => l.includes('"audit":"token_issued"'))).toBe(true);
    expect(logLines.join('\n')).not.toContain(response.body.access_token as string);
  });

  it('refuses duplicate parameters and non-form bodies', async () => {
    const dup = await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=a&scope=b',
    });
    expect(await dup.json()).toEqual({
      error: 'invalid_request',
      error_description: 'duplicate parameter: scope',
    });
    const json = await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({
      error: 'invalid_request',
      error_description: 'body must be application/x-www-form-urlencoded',
    });
  });

  it('refuses client_credentials for a public client and a scope the client may not ask for', async () => {
    const spa = await createClient(server, { client_type: 'public', grant_types: ['authorization_code'] });
    const pub = await postForm(`${server.url}/token`, {
      grant_type: 'client_credentials',
      client_id: spa.clientId,
    });
    expect(pub.body).toEqual({
      error: 'unauthorized_client',
      error_description: 'client_credentials is not allowed for this client',
    });
    const scope = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'admin.everything' },
      auth(),
    );
    expect(scope.body).toEqual({ error: 'invalid_scope', error_description: 'scope not allowed' });
  });

  it('answers an unknown code with invalid_grant', async () => {
    const response = await postForm(
      `${server.url}/token`,
      { grant_type: 'authorization_code', code: 'nope', redirect_uri: 'https://app.example/cb' },
      auth(),
    );
    expect(response.body).toEqual({
      error: 'invalid_grant',
      error_description: 'unknown authorization code',
    });
  });
});

describe('throttling and network restriction', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer({
      AUTH_FAILURES_PER_MINUTE: '3',
      INTROSPECTION_ALLOW_CIDRS: '127.0.0.0/8',
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers 429 with Retry-After once failed introspection authentications exceed the budget', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 5; i += 1) {
      const response = await postForm(
        `${server.url}/token_info`,
        { token: 'x' },
        { authorization: basic('rs', 'wrong') },
      );
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses[4]).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('answers 429 once failed client authentications at /token exceed the budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1)
      statuses.push(
        (
          await postForm(
            `${server.url}/token`,
            { grant_type: 'client_credentials' },
            { authorization: basic('c', 'x') },
          )
        ).status,
      );
    expect(statuses[4]).toBe(429);
  });
});

describe('INTROSPECTION_ALLOW_CIDRS', () => {
  it('refuses callers outside the allowed networks before any credential check', async () => {
    const server = await startAuthServer({ INTROSPECTION_ALLOW_CIDRS: '10.0.0.0/8' });
    try {
      const rs = await createResourceServer(server, ['search.read']);
      const response = await postForm(
        `${server.url}/token_info`,
        { token: 'x' },
        { authorization: basic(rs.id, rs.secret) },
      );
      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        error: 'access_denied',
        error_description: 'introspection is not allowed from this address',
      });
    } finally {
      await server.stop();
    }
  });
});
