import type { RunningAuthServer } from '../../../auth-server/test/support/start-auth-server';
import { dpopKey, dpopProof } from '../../../auth-server/test/support/dpop-helpers';
import type { RunningSearchStore } from '../support/start-search-store';
import { clientCredentialsToken } from '../support/auth-server-calls';
import { startInstancesBehindAuth, stopInstancesBehindAuth } from '../support/start-instances-behind-auth';

/**
 * RFC 9449 §9 resource-server nonces at search-store (DPOP_NONCE_SECRET): a proof without this service's
 * nonce is 401 `use_dpop_nonce` with a `DPoP-Nonce` header; the retry with it passes, and so does one at
 * another instance sharing the secret. Real auth-server and Postgres.
 */
describe('DPoP nonces at search-store (RFC 9449 §9)', () => {
  let auth: RunningAuthServer;
  let instances: RunningSearchStore[] = [];
  let client: { client_id: string; client_secret: string };
  const key = dpopKey('ES256');

  const boundToken = () => clientCredentialsToken(auth, client, key);
  const searchOn = (instance: RunningSearchStore, path: string, token: string, nonce?: string) =>
    fetch(`${instance.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `DPoP ${token}`,
        dpop: dpopProof(key, {
          htu: `${instance.url}/_search`,
          accessToken: token,
          ...(nonce === undefined ? {} : { nonce }),
        }),
        'content-type': 'application/json',
      },
      body: '{}',
    });

  beforeAll(async () => {
    ({ auth, client, instances } = await startInstancesBehindAuth('dpop nonce', {
      DPOP_NONCE_SECRET: 'search-store-nonce-secret-of-32-characters-or-more',
    }));
  });
  afterAll(() => stopInstancesBehindAuth({ auth, instances }));

  it.each([
    ['lean', '/_search'],
    ['express', '/_search?size=1'],
  ])('asks for its nonce, then takes the retry with it, at any instance (%s path)', async (_name, path) => {
    const [first, second] = instances as [RunningSearchStore, RunningSearchStore];
    const token = await boundToken();
    const refused = await searchOn(first, path, token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('DPoP error="use_dpop_nonce"');
    const body = (await refused.json()) as { error: { type: string } };
    expect(body.error.type).toBe('security_exception');
    const nonce = refused.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const wrong = await searchOn(first, path, token, 'not-our-nonce');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('DPoP error="use_dpop_nonce"');
    const retried = await searchOn(first, path, token, nonce!);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('dpop-nonce')).toBe(nonce);
    expect((await searchOn(second, path, token, nonce!)).status).toBe(200);
  });

  it('still refuses a bound token as Bearer, with no nonce asked', async () => {
    const token = await boundToken();
    const response = await fetch(`${instances[0]!.url}/_search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('DPoP error="invalid_token"');
    expect(response.headers.get('dpop-nonce')).toBeNull();
  });
});
