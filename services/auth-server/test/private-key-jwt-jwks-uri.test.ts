import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { admin, createClient, postForm, type Json } from './support/oauth-helpers';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

function ecKey(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid } as Json };
}

/**
 * private_key_jwt with keys at a registered jwks_uri (RFC 7591 §2), served by a loopback HTTP server
 * the test controls: fetched with a timeout and a size cap, cached, fetched again for an unknown kid.
 */
describe('private_key_jwt with a jwks_uri', () => {
  let server: RunningAuthServer;
  let keysServer: Server;
  let jwksUri: string;
  /** What the keys server answers next; `requests` counts the fetches. */
  let answer: { status: number; body: string; delayMs: number };
  let requests = 0;

  const assertion = (clientId: string, key: { kid: string; privateKey: KeyObject }) => {
    const now = Math.floor(Date.now() / 1000);
    return jwt.sign(
      { iss: clientId, sub: clientId, aud: server.config.ISSUER, jti: randomUUID(), exp: now + 60 },
      key.privateKey,
      { algorithm: 'ES256', keyid: key.kid },
    );
  };
  const token = (clientId: string, key: { kid: string; privateKey: KeyObject }) =>
    postForm(`${server.url}/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion(clientId, key),
    });
  const serve = (keys: Json[]) => {
    answer = { status: 200, body: JSON.stringify({ keys }), delayMs: 0 };
  };
  const register = async () =>
    (
      await createClient(server, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: `${jwksUri}?${randomUUID()}`, // one URI (and cache entry) per test
      })
    ).clientId;

  beforeAll(async () => {
    keysServer = createServer((_req, res) => {
      requests += 1;
      const { status, body, delayMs } = answer;
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      }, delayMs);
    });
    await new Promise<void>((resolve) => keysServer.listen(0, '127.0.0.1', resolve));
    jwksUri = `http://127.0.0.1:${(keysServer.address() as AddressInfo).port}/jwks`;
    server = await startAuthServer({
      CLIENT_JWKS_FETCH_TIMEOUT_MS: '300',
      CLIENT_JWKS_REFETCH_SECONDS: '0',
      AUTH_FAILURES_PER_MINUTE: '1000',
    });
  });
  afterAll(async () => {
    await server.stop();
    keysServer.closeAllConnections();
    await new Promise((resolve) => keysServer.close(resolve));
  });

  it('fetches the set once and serves later assertions from the cache', async () => {
    const key = ecKey('a');
    serve([key.publicJwk]);
    const clientId = await register();
    requests = 0;
    expect((await token(clientId, key)).status).toBe(200);
    expect((await token(clientId, key)).status).toBe(200);
    expect(requests).toBe(1);
  });

  it('fetches again for a kid not in the cached set (key rotation), and refuses a kid still unknown', async () => {
    const [oldKey, newKey] = [ecKey('old'), ecKey('new')];
    serve([oldKey.publicJwk]);
    const clientId = await register();
    expect((await token(clientId, oldKey)).status).toBe(200);
    serve([newKey.publicJwk]);
    expect((await token(clientId, newKey)).status).toBe(200);
    expect((await token(clientId, ecKey('other'))).status).toBe(401);
  });

  it('refuses when the set cannot be had: an error status, a slow answer, an oversized one, private keys', async () => {
    const key = ecKey('k');
    const clientId = await register();
    const privateJwk = { ...(key.privateKey.export({ format: 'jwk' }) as Json), kid: 'k' };
    for (const bad of [
      { status: 500, body: JSON.stringify({ keys: [key.publicJwk] }), delayMs: 0 },
      { status: 200, body: JSON.stringify({ keys: [key.publicJwk] }), delayMs: 1000 },
      { status: 200, body: `${' '.repeat(70_000)}${JSON.stringify({ keys: [key.publicJwk] })}`, delayMs: 0 },
      { status: 200, body: JSON.stringify({ keys: [privateJwk] }), delayMs: 0 },
      { status: 200, body: 'not json', delayMs: 0 },
    ]) {
      answer = bad;
      const response = await token(clientId, key);
      expect({
        bad: bad.status + bad.body.trim().slice(0, 20) + bad.body.length,
        status: response.status,
      }).toEqual({
        bad: bad.status + bad.body.trim().slice(0, 20) + bad.body.length,
        status: 401,
      });
      expect(response.body.error).toBe('invalid_client');
    }
    serve([key.publicJwk]);
    expect((await token(clientId, key)).status).toBe(200);
  });

  it('fetches at most once per refetch interval however many unknown kids are named', async () => {
    const limited = await startAuthServer({ CLIENT_JWKS_REFETCH_SECONDS: '60' });
    try {
      const key = ecKey('k');
      serve([key.publicJwk]);
      const { clientId } = await createClient(limited, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: `${jwksUri}?${randomUUID()}`,
      });
      requests = 0;
      for (let i = 0; i < 5; i += 1) {
        const unknown = ecKey(`x${i}`);
        const now = Math.floor(Date.now() / 1000);
        const response = await postForm(`${limited.url}/token`, {
          grant_type: 'client_credentials',
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: jwt.sign(
            { iss: clientId, sub: clientId, aud: limited.config.ISSUER, jti: randomUUID(), exp: now + 60 },
            unknown.privateKey,
            { algorithm: 'ES256', keyid: unknown.kid },
          ),
        });
        expect(response.status).toBe(401);
      }
      expect(requests).toBe(1);
    } finally {
      await limited.stop();
    }
  });

  it('registers a jwks_uri only as https or loopback http, never together with jwks', async () => {
    const key = ecKey('k');
    for (const overrides of [
      { jwks_uri: 'http://keys.example/jwks' },
      { jwks_uri: 'https://user:pw@keys.example/jwks' },
      { jwks_uri: 'not a url' },
      { jwks_uri: 'https://keys.example/jwks', jwks: { keys: [key.publicJwk] } },
    ]) {
      const { status, body } = await admin(server, 'POST', '/clients', {
        name: 'bad',
        client_type: 'confidential',
        token_endpoint_auth_method: 'private_key_jwt',
        ...overrides,
      });
      expect({ overrides, status, error: body.error }).toEqual({
        overrides,
        status: 400,
        error: 'invalid_client_metadata',
      });
    }
    const ok = await admin(server, 'POST', '/clients', {
      name: 'ok',
      client_type: 'confidential',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://keys.example/jwks',
    });
    expect(ok.status).toBe(201);
    expect(ok.body.jwks_uri).toBe('https://keys.example/jwks');
    expect(ok.body.client_secret).toBeUndefined();
  });
});
