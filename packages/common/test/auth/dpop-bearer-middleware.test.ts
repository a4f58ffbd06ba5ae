import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import nock from 'nock';
import {
  bearerAuth,
  createIntrospectionClient,
  createLocalDpopReplayCache,
  createLogger,
  introspectionVerifier,
  oauthErrorHandler,
} from '../../src';
import { dpopKey, dpopProof } from '../../../../services/auth-server/test/support/dpop-helpers';

const AUTH = 'http://auth.test';

/**
 * RFC 9449 §7 in @acme/common's bearer middleware: `Authorization: DPoP` with a proof checked against the
 * introspected cnf.jkt, and a bound token refused as Bearer (401, DPoP challenge with algs).
 */
describe('bearer middleware with DPoP (RFC 9449 §7)', () => {
  let url: string;
  let server: Server;
  const key = dpopKey('ES256');
  const bound = (token: string, jkt: string) =>
    nock(AUTH)
      .post('/token_info', `token=${token}`)
      .reply(200, { active: true, scope: 'search.read', token_type: 'DPoP', cnf: { jkt } });
  const get = (authorization: string, proof?: string) =>
    fetch(`${url}/docs`, { headers: { authorization, ...(proof ? { dpop: proof } : {}) } });

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    const verify = introspectionVerifier(
      createIntrospectionClient({
        authServerUrl: AUTH,
        clientId: 'rs',
        clientSecret: 's',
        cacheMaxSeconds: 0,
      }),
    );
    const app = express();
    app.get(
      '/docs',
      bearerAuth({
        realm: 'search',
        verify,
        dpop: { replay: createLocalDpopReplayCache(), maxAgeSeconds: 60 },
      }),
      (req, res) => void res.json(req.principal),
    );
    app.use(oauthErrorHandler(createLogger({ service: 'test', silent: true })));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    nock.enableNetConnect();
    await new Promise((resolve) => server.close(resolve));
  });

  it('passes a DPoP request whose proof is of the token key, with ath', async () => {
    bound('t1', key.jkt);
    const response = await get(
      'DPoP t1',
      dpopProof(key, { htm: 'GET', htu: `${url}/docs`, accessToken: 't1' }),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { dpopJkt: string }).dpopJkt).toBe(key.jkt);
  });

  it('refuses the bound token as Bearer with a DPoP invalid_token challenge (§7.2)', async () => {
    bound('t2', key.jkt);
    const response = await get('Bearer t2');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^DPoP realm="search", error="invalid_token", error_description="[^"]+", algs="ES256 [^"]+"$/,
    );
    expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
  });

  it('refuses a proof of another key or a replayed one (invalid_dpop_proof, 401)', async () => {
    bound('t3', key.jkt);
    const other = dpopProof(dpopKey('ES256'), { htm: 'GET', htu: `${url}/docs`, accessToken: 't3' });
    const response = await get('DPoP t3', other);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_dpop_proof"');
    const proof = dpopProof(key, { htm: 'GET', htu: `${url}/docs`, accessToken: 't3' });
    bound('t3', key.jkt);
    expect((await get('DPoP t3', proof)).status).toBe(200);
    bound('t3', key.jkt);
    expect((await get('DPoP t3', proof)).status).toBe(401);
  });
});
