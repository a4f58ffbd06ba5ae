import { startAuthServer, type RunningAuthServer } from '../../../auth-server/test/support/start-auth-server';
import { dpopKey, dpopProof, type DpopKey } from '../../../auth-server/test/support/dpop-helpers';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { clientCredentialsToken, registerSearchStore } from '../support/auth-server-calls';

/**
 * RFC 9449 §7 at search-store, against a real auth-server: `Authorization: DPoP` with a proof (`ath`, htm,
 * htu, the token's cnf.jkt, jti once) on both search paths (the lean POST /_search in front of express,
 * and express for everything else), and a DPoP-bound token refused as Bearer (§7.2). Refusals are
 * Elasticsearch's 401 security_exception with a DPoP challenge listing `algs`.
 */
describe('DPoP at search-store (RFC 9449 §7)', () => {
  let auth: RunningAuthServer;
  let search: RunningSearchStore;
  let client: { client_id: string; client_secret: string };
  const key = dpopKey('ES256');

  /** A client_credentials token, bound to `k` when given. */
  const tokenFor = (k: DpopKey | undefined) => clientCredentialsToken(auth, client, k);
  /** The lean path takes POST /_search without a query string; `?size=1` sends it through express. */
  const PATHS = [
    ['lean', '/_search'],
    ['express', '/_search?size=1'],
  ] as const;
  const searchWith = (path: string, authorization: string, proof?: string) =>
    fetch(`${search.url}${path}`, {
      method: 'POST',
      headers: {
        authorization,
        'content-type': 'application/json',
        ...(proof === undefined ? {} : { dpop: proof }),
      },
      body: '{}',
    });
  const expectRefused = async (response: Response, error: string) => {
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { type: string; header: Record<string, string[]> } };
    expect(body.error.type).toBe('security_exception');
    const challenges = response.headers.get('www-authenticate') ?? '';
    expect(challenges).toContain(`DPoP error="${error}"`);
    expect(challenges).toMatch(/algs="ES256 [^"]*EdDSA"/);
    expect(body.error.header['WWW-Authenticate']).toEqual(
      expect.arrayContaining([expect.stringContaining(`DPoP error="${error}"`)]),
    );
  };

  beforeAll(async () => {
    auth = await startAuthServer({}, { issuerIsUrl: true });
    const registered = await registerSearchStore(auth, 'dpop app', [
      'search.read',
      'search.write',
      'search.admin',
    ]);
    client = registered.client;
    search = await startSearchStore(registered.env, { auth: 'real' });
  });
  afterAll(async () => {
    await search?.stop();
    await auth?.stop();
  });

  it.each(PATHS)('takes a DPoP-bound token with a good proof (%s path)', async (_name, path) => {
    const token = await tokenFor(key);
    const proof = dpopProof(key, { htu: `${search.url}${path}`, accessToken: token });
    const response = await searchWith(path, `DPoP ${token}`, proof);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { hits: unknown }).hits).toBeDefined();
  });

  it.each(PATHS)('refuses a DPoP-bound token presented as Bearer (%s path, §7.2)', async (_name, path) => {
    const token = await tokenFor(key);
    await expectRefused(await searchWith(path, `Bearer ${token}`), 'invalid_token');
    // Even with a proof alongside: the scheme says bearer.
    const proof = dpopProof(key, { htu: `${search.url}${path}`, accessToken: token });
    await expectRefused(await searchWith(path, `Bearer ${token}`, proof), 'invalid_token');
  });

  it.each(PATHS)('refuses a bad proof (%s path)', async (_name, path) => {
    const token = await tokenFor(key);
    const htu = `${search.url}${path}`;
    const bad = [
      undefined, // no proof at all
      dpopProof(key, { htu }), // no ath
      dpopProof(key, { htu, accessToken: 'another-token' }), // ath of another token
      dpopProof(key, { htu, accessToken: token, htm: 'GET' }),
      dpopProof(key, { htu: `${search.url}/other/_search`, accessToken: token }),
      dpopProof(key, { htu, accessToken: token, iat: Math.floor(Date.now() / 1000) - 3600 }),
      dpopProof(dpopKey('ES256'), { htu, accessToken: token }), // a proof of another key
    ];
    for (const proof of bad) {
      await expectRefused(await searchWith(path, `DPoP ${token}`, proof), 'invalid_dpop_proof');
    }
  });

  it('accepts a proof once (jti, §11.1), whichever path it comes to', async () => {
    const token = await tokenFor(key);
    const proof = dpopProof(key, { htu: `${search.url}/_search`, accessToken: token });
    expect((await searchWith('/_search', `DPoP ${token}`, proof)).status).toBe(200);
    // The same proof to the express path (htu ignores the query): a replay.
    await expectRefused(await searchWith('/_search?size=1', `DPoP ${token}`, proof), 'invalid_dpop_proof');
    await expectRefused(await searchWith('/_search', `DPoP ${token}`, proof), 'invalid_dpop_proof');
  });

  it('refuses an unbound token under the DPoP scheme, and still takes it as Bearer', async () => {
    const token = await tokenFor(undefined);
    const proof = dpopProof(key, { htu: `${search.url}/_search`, accessToken: token });
    await expectRefused(await searchWith('/_search', `DPoP ${token}`, proof), 'invalid_token');
    expect((await searchWith('/_search', `Bearer ${token}`)).status).toBe(200);
  });
});
