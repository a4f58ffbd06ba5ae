import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import nock from 'nock';
import { createLogger, esErrorHandler } from '@acme/common';
import { authenticateRequest } from '../../src/auth/authenticate-request';
import { scopedRouter } from '../../src/http/scoped-router';

const AUTH = 'http://auth-server.test';
const BASIC_CHALLENGE = 'Basic realm="security", charset="UTF-8"';
const BEARER_CHALLENGE = 'Bearer realm="security"';
const RS_BASIC = `Basic ${Buffer.from('search-store:rs-introspection-secret-0123').toString('base64')}`;

/**
 * The middleware in front of probe routes that echo the principal, over HTTP on port 0; auth-server
 * is stubbed with nock (outbound HTTP only).
 */
async function startProbe(cacheMaxSeconds = 30) {
  const app = express();
  const logger = createLogger({ service: 'search-store', silent: true });
  app.use(
    authenticateRequest({
      config: {
        AUTH_SERVER_URL: AUTH,
        INTROSPECTION_CLIENT_ID: 'search-store',
        INTROSPECTION_CLIENT_SECRET: 'rs-introspection-secret-0123',
        INTROSPECTION_CACHE_MAX_SECONDS: cacheMaxSeconds,
        AUTH_SERVER_TIMEOUT_MS: 200,
      },
      logger,
    }),
  );
  // The scope check belongs to each route (http/scoped-router.ts); two admin routes show the 403.
  const { router, route } = scopedRouter();
  const echo: express.RequestHandler = (req, res) => {
    res.json(req.principal);
  };
  route('PUT', '/:index', 'search.admin', 'indices:admin/create', echo);
  route('POST', '/_reindex', 'search.admin', 'indices:data/write/reindex', echo);
  app.use(router);
  app.all('/{*rest}', (req, res) => {
    res.json(req.principal);
  });
  app.use(esErrorHandler(logger));
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

interface RawResponse {
  status: number;
  rawHeaders: string[];
  body: unknown;
}

/** node:http rather than fetch: fetch joins repeated headers, and we assert one line per challenge. */
function send(port: number, method: string, path: string, authorization?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: authorization ? { authorization } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            rawHeaders: res.rawHeaders,
            body: text ? JSON.parse(text) : undefined,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const headerLines = (response: RawResponse, name: string) =>
  response.rawHeaders.filter((_, i) => i % 2 === 0 && response.rawHeaders[i]!.toLowerCase() === name).length;
const headerValues = (response: RawResponse, name: string) =>
  response.rawHeaders.filter((_, i) => i % 2 === 1 && response.rawHeaders[i - 1]!.toLowerCase() === name);

const securityError = (status: number, reason: string, extra: Record<string, unknown> = {}) => ({
  error: {
    root_cause: [{ type: 'security_exception', reason, ...extra }],
    type: 'security_exception',
    reason,
    ...extra,
  },
  status,
});

describe('search-store request authentication', () => {
  let probe: Awaited<ReturnType<typeof startProbe>>;
  const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;
  /** Introspection answers by token; every call is counted and its Basic credentials checked. */
  const introspect = (answers: Record<string, object>) => {
    const calls = { count: 0 };
    nock(AUTH)
      .post('/token_info')
      .reply(function (_uri, body) {
        calls.count += 1;
        if (this.req.headers.authorization !== RS_BASIC) return [401, { error: 'invalid_client' }];
        const token = new URLSearchParams(String(body)).get('token') ?? '';
        return [200, answers[token] ?? { active: false }];
      })
      .persist();
    return calls;
  };

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    probe = await startProbe();
  });
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    await probe.close();
    nock.enableNetConnect();
  });

  it('answers 401 security_exception with both challenges when no credentials are sent', async () => {
    const response = await send(probe.port, 'GET', '/logs/_search?q=x');
    expect(response.status).toBe(401);
    expect(response.body).toEqual(
      securityError(401, 'missing authentication credentials for REST request [/logs/_search?q=x]', {
        header: { 'WWW-Authenticate': [BASIC_CHALLENGE, BEARER_CHALLENGE] },
      }),
    );
    expect(headerLines(response, 'www-authenticate')).toBe(2);
    expect(headerValues(response, 'www-authenticate')).toEqual([BASIC_CHALLENGE, BEARER_CHALLENGE]);
  });

  it('lets an active bearer token with the route scope through and puts the principal on the request', async () => {
    const calls = introspect({
      'tok-read': {
        active: true,
        scope: 'search.read',
        username: 'alice',
        client_id: 'app',
        exp: inOneHour(),
      },
    });
    const response = await send(probe.port, 'POST', '/logs/_search', 'Bearer tok-read');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ username: 'alice', clientId: 'app', scopes: ['search.read'] });
    await send(probe.port, 'GET', '/logs/_count', 'Bearer tok-read');
    expect(calls.count).toBe(1);
  });

  it('answers 401 with an invalid_token challenge for an inactive bearer token', async () => {
    introspect({});
    const response = await send(probe.port, 'GET', '/logs/_search', 'Bearer revoked-token');
    expect(response.status).toBe(401);
    const challenges = [BASIC_CHALLENGE, 'Bearer realm="security", error="invalid_token"'];
    expect(response.body).toEqual(
      securityError(
        401,
        'unable to authenticate with provided credentials and anonymous access is not allowed for this request',
        { header: { 'WWW-Authenticate': challenges } },
      ),
    );
    expect(headerValues(response, 'www-authenticate')).toEqual(challenges);
  });

  it('answers 403 naming the action, the user and the missing scope', async () => {
    introspect({ 'tok-ro': { active: true, scope: 'search.read', username: 'alice', exp: inOneHour() } });
    const response = await send(probe.port, 'PUT', '/logs', 'Bearer tok-ro');
    expect(response.status).toBe(403);
    expect(response.body).toEqual(
      securityError(
        403,
        'action [indices:admin/create] is unauthorized for user [alice] with effective roles [search.read] ' +
          'on indices [logs], this action is granted by the scope [search.admin]',
      ),
    );
  });

  it('treats Basic credentials as a service account: client_credentials token, cached, then introspected', async () => {
    const tokenCalls = { count: 0 };
    nock(AUTH)
      .post('/token', 'grant_type=client_credentials')
      .basicAuth({ user: 'ingest', pass: 's3cret' })
      .reply(() => {
        tokenCalls.count += 1;
        return [200, { access_token: 'svc-token', token_type: 'Bearer', expires_in: 3600 }];
      })
      .persist();
    const introspections = introspect({
      'svc-token': { active: true, scope: 'search.read search.write', client_id: 'ingest', exp: inOneHour() },
    });
    const basic = `Basic ${Buffer.from('ingest:s3cret').toString('base64')}`;
    const first = await send(probe.port, 'POST', '/_bulk', basic);
    const second = await send(probe.port, 'PUT', '/logs/_doc/1', basic);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body).toMatchObject({ clientId: 'ingest', scopes: ['search.read', 'search.write'] });
    expect(tokenCalls.count).toBe(1);
    expect(introspections.count).toBe(1);
    const denied = await send(probe.port, 'POST', '/_reindex', basic);
    expect(denied.status).toBe(403);
    expect((denied.body as { error: { reason: string } }).error.reason).toBe(
      'action [indices:data/write/reindex] is unauthorized for user [ingest] with effective roles ' +
        '[search.read,search.write], this action is granted by the scope [search.admin]',
    );
  });

  it('answers 401 "unable to authenticate user" when auth-server refuses the service account', async () => {
    nock(AUTH).post('/token').reply(401, { error: 'invalid_client' });
    const response = await send(
      probe.port,
      'GET',
      '/logs/_doc/1',
      `Basic ${Buffer.from('ingest:wrong').toString('base64')}`,
    );
    expect(response.status).toBe(401);
    expect(response.body).toEqual(
      securityError(401, 'unable to authenticate user [ingest] for REST request [/logs/_doc/1]', {
        header: { 'WWW-Authenticate': [BASIC_CHALLENGE, BEARER_CHALLENGE] },
      }),
    );
  });

  it('answers 503 and lets nothing through when auth-server is unreachable', async () => {
    nock(AUTH).post('/token_info').replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' });
    const response = await send(probe.port, 'GET', '/logs/_search', 'Bearer some-token');
    expect(response.status).toBe(503);
    expect(response.body).toEqual(
      securityError(
        503,
        'authentication service unavailable: auth-server is unreachable; the request was not authenticated',
      ),
    );
    expect(headerValues(response, 'retry-after')).toEqual(['1']);
  });

  it('answers 503 when introspection does not answer in time', async () => {
    nock(AUTH).post('/token_info').delay(1000).reply(200, { active: true, scope: 'search.read' });
    const response = await send(probe.port, 'GET', '/logs/_search', 'Bearer slow-token');
    expect(response.status).toBe(503);
    expect((response.body as { error: { reason: string } }).error.reason).toBe(
      'authentication service unavailable: auth-server did not answer in time; the request was not authenticated',
    );
  });

  it('answers 503 when auth-server fails the service-account token request', async () => {
    nock(AUTH).post('/token').reply(500, { error: 'server_error' });
    const response = await send(
      probe.port,
      'GET',
      '/',
      `Basic ${Buffer.from('ingest:x').toString('base64')}`,
    );
    expect(response.status).toBe(503);
  });

  it('answers 503 when auth-server refuses search-store’s own introspection credentials', async () => {
    nock(AUTH).post('/token_info').reply(401, { error: 'invalid_client' });
    const response = await send(probe.port, 'GET', '/', 'Bearer any-token');
    expect(response.status).toBe(503);
    expect((response.body as { error: { reason: string } }).error.reason).toContain(
      "auth-server refused search-store's introspection credentials",
    );
  });

  it('answers 401 for an unreadable Authorization header without calling auth-server', async () => {
    const response = await send(probe.port, 'GET', '/', 'ApiKey abc');
    expect(response.status).toBe(401);
    expect((response.body as { error: { reason: string } }).error.reason).toBe(
      'unable to authenticate with provided credentials and anonymous access is not allowed for this request',
    );
  });
});
