import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import jwt from 'jsonwebtoken';
import nock from 'nock';
import {
  bearerAuth,
  createIntrospectionClient,
  createJwtVerifier,
  createLogger,
  introspectionVerifier,
  oauthErrorHandler,
  requireScope,
  type TokenVerifier,
} from '../../src';

const AUTH = 'http://auth.test';

/** An app on port 0 with the middleware in front of one scoped route that echoes the principal. */
async function startApp(verify: TokenVerifier): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.get(
    '/docs',
    bearerAuth({ realm: 'search', verify }),
    requireScope('search.read', 'search'),
    (req, res) => {
      res.json(req.principal);
    },
  );
  app.use(oauthErrorHandler(createLogger({ service: 'test', silent: true })));
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('bearer middleware with introspection', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;
  const answer = (token: string, body: object, status = 200) =>
    nock(AUTH).post('/token_info', `token=${token}`).reply(status, body);

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    const client = createIntrospectionClient({
      authServerUrl: AUTH,
      clientId: 'rs',
      clientSecret: 'rs-secret',
      cacheMaxSeconds: 0,
    });
    app = await startApp(introspectionVerifier(client));
  });
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    await app.close();
    nock.enableNetConnect();
  });

  it('answers 401 with a bare Bearer challenge when no credentials are sent (RFC 6750 §3.1)', async () => {
    const response = await fetch(`${app.url}/docs`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="search"');
    expect(await response.json()).toEqual({
      error: 'unauthorized',
      error_description: 'bearer token required',
    });
  });

  it('answers 401 with a bare Bearer challenge for another scheme', async () => {
    const response = await fetch(`${app.url}/docs`, { headers: { authorization: 'Basic dTpw' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="search"');
  });

  it('accepts the scheme in any case and puts the principal on the request', async () => {
    answer('tok-1', { active: true, scope: 'search.read', sub: 'u1', client_id: 'app', exp: inOneHour() });
    const response = await fetch(`${app.url}/docs`, { headers: { authorization: 'bEaReR tok-1' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ subject: 'u1', clientId: 'app', scopes: ['search.read'] });
  });

  it('answers 401 invalid_token for an inactive token', async () => {
    answer('dead', { active: false });
    const response = await fetch(`${app.url}/docs`, { headers: { authorization: 'Bearer dead' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="search", error="invalid_token", error_description="token is not active"',
    );
    expect(await response.json()).toEqual({
      error: 'invalid_token',
      error_description: 'token is not active',
    });
  });

  it('answers 401 invalid_token for a token that is not b64token syntax, without calling the server', async () => {
    const response = await fetch(`${app.url}/docs`, { headers: { authorization: 'Bearer a b' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers 403 insufficient_scope naming the scope the route needs', async () => {
    answer('writer', { active: true, scope: 'search.write', exp: inOneHour() });
    const response = await fetch(`${app.url}/docs`, { headers: { authorization: 'Bearer writer' } });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="search", error="insufficient_scope", scope="search.read"',
    );
    expect(await response.json()).toEqual({
      error: 'insufficient_scope',
      error_description: 'the token lacks the scope search.read',
    });
  });

  it('answers 503 and never lets the request through when the auth server fails', async () => {
    answer('tok-2', { error: 'server_error' }, 500);
    const response = await fetch(`${app.url}/docs`, { headers: { authorization: 'Bearer tok-2' } });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'cannot verify the token: auth server answered 500',
    });
  });
});

describe('bearer middleware with the JWT verifier', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    const verifier = createJwtVerifier({ key: publicKey, algorithms: ['ES256'] });
    app = await startApp((token) => verifier.verify(token));
  });
  afterAll(() => app.close());

  it('answers the product spec body for an expired token, with an invalid_token challenge', async () => {
    const token = jwt.sign({ scope: 'search.read', exp: Math.floor(Date.now() / 1000) - 10 }, privateKey, {
      algorithm: 'ES256',
    });
    const response = await fetch(`${app.url}/docs`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="search", error="invalid_token", error_description="token has expired"',
    );
    expect(await response.json()).toEqual({ error: 'expired', error_description: 'token has expired' });
  });

  it('lets a valid token with the scope through', async () => {
    const token = jwt.sign({ sub: 'u2', scope: 'search.read' }, privateKey, {
      algorithm: 'ES256',
      expiresIn: 60,
    });
    const response = await fetch(`${app.url}/docs`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ subject: 'u2', source: 'jwt' });
  });
});
