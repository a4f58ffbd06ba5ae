import { request } from 'node:http';
import { testRedisUrl } from '@acme/testkit';
import type { RunningAuthServer } from '../../../auth-server/test/support/start-auth-server';
import { dpopKey, dpopProof } from '../../../auth-server/test/support/dpop-helpers';
import type { RunningSearchStore } from '../support/start-search-store';
import { clientCredentialsToken } from '../support/auth-server-calls';
import { startInstancesBehindAuth, stopInstancesBehindAuth } from '../support/start-instances-behind-auth';

/** What both instances are reached as behind one load balancer: the proofs' `htu` names it. */
const PUBLIC_HOST = 'search.example';

/**
 * RFC 9449 §11.1 across instances: two search-store instances sharing REDIS_URL refuse a DPoP proof
 * replayed from one to the other (on both search paths); real auth-server, Postgres and Redis.
 */
describe('DPoP proof replay shared by search-store instances (REDIS_URL)', () => {
  let auth: RunningAuthServer;
  let instances: RunningSearchStore[] = [];
  let client: { client_id: string; client_secret: string };
  const key = dpopKey('ES256');

  const boundToken = () => clientCredentialsToken(auth, client, key);
  /** POST `path` to one instance with the public Host header (fetch cannot set Host). */
  const searchOn = (instance: RunningSearchStore, path: string, token: string, proof: string) =>
    new Promise<{ status: number; challenge: string }>((resolve, reject) => {
      const body = '{}';
      const req = request(`${instance.url}${path}`, {
        method: 'POST',
        headers: {
          host: PUBLIC_HOST,
          authorization: `DPoP ${token}`,
          dpop: proof,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, challenge: String(res.headers['www-authenticate'] ?? '') }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });

  beforeAll(async () => {
    ({ auth, client, instances } = await startInstancesBehindAuth('dpop shared', {
      REDIS_URL: testRedisUrl(),
    }));
  });
  afterAll(() => stopInstancesBehindAuth({ auth, instances }));

  it.each([
    ['lean', '/_search'],
    ['express', '/_search?size=1'],
  ])('refuses at the second instance a proof the first accepted (%s path)', async (_name, path) => {
    const [first, second] = instances as [RunningSearchStore, RunningSearchStore];
    const token = await boundToken();
    const proof = dpopProof(key, { htu: `http://${PUBLIC_HOST}/_search`, accessToken: token });
    expect((await searchOn(first, path, token, proof)).status).toBe(200);
    const replayed = await searchOn(second, path, token, proof);
    expect(replayed.status).toBe(401);
    expect(replayed.challenge).toContain('DPoP error="invalid_dpop_proof"');
    expect(replayed.challenge).toContain('already used');
    // A fresh proof of the same key is fine at either instance.
    const fresh = dpopProof(key, { htu: `http://${PUBLIC_HOST}/_search`, accessToken: token });
    expect((await searchOn(second, path, token, fresh)).status).toBe(200);
  });
});
