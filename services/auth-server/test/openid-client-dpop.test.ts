import { createHash, generateKeyPairSync } from 'node:crypto';
import { Issuer, generators, errors, type BaseClient } from 'openid-client';
import { testRedisUrl } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, createUser, postForm } from './support/oauth-helpers';

/** RFC 7638 thumbprint of an EC public key, computed here apart from the server's code. */
function thumbprint(publicJwk: { crv?: string; kty?: string; x?: string; y?: string }): string {
  const { crv, kty, x, y } = publicJwk;
  return createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
}

/**
 * RFC 9449 from the client side through openid-client 5 (a certified relying party library), over HTTP on
 * real Postgres and Redis with server nonces required (§8): a public client's code flow with DPoP (the
 * library retries on use_dpop_nonce by itself), userinfo with a proof, a key-bound refresh, and the bound
 * tokens refused without their key.
 */
describe('openid-client with DPoP against the running server', () => {
  let server: RunningAuthServer;
  let rs: { id: string; secret: string };
  let rp: BaseClient;
  let userId: string;
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jkt = thumbprint(key.publicKey.export({ format: 'jwk' }));
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

  /** The code flow's browser half through the flow seam (as openid-client.test.ts), then the callback. */
  const codeFlow = async (dpop = key.privateKey) => {
    const verifier = generators.codeVerifier();
    const nonce = generators.nonce();
    const state = generators.state();
    const authUrl = new URL(
      rp.authorizationUrl({
        scope: 'openid profile offline_access search.read',
        code_challenge: generators.codeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce,
        state,
      }),
    );
    const request = await server.core.flow.parse(Object.fromEntries(authUrl.searchParams));
    const redirect = await server.core.flow.approve(
      request,
      { userId, authTime: new Date() },
      request.scopes,
    );
    return rp.callback(
      'https://app.example/cb',
      rp.callbackParams(redirect),
      { code_verifier: verifier, nonce, state },
      {
        DPoP: dpop,
      },
    );
  };
  const introspect = (token: string) =>
    postForm(`${server.url}/token_info`, { token }, { authorization: basic(rs.id, rs.secret) });

  beforeAll(async () => {
    server = await startAuthServer(
      { REDIS_URL: testRedisUrl(), DPOP_NONCE_REQUIRED: 'true' },
      { issuerIsUrl: true },
    );
    const created = await createResourceServer(server, ['search.read']);
    rs = { id: created.id, secret: created.secret };
    const registered = await createClient(server, {
      client_type: 'public',
      application_type: 'native',
      redirect_uris: ['https://app.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    userId = (await createUser(server)).userId;
    const issuer = await Issuer.discover(server.url);
    expect(issuer.metadata.dpop_signing_alg_values_supported).toContain('ES256');
    rp = new issuer.Client({
      client_id: registered.clientId,
      redirect_uris: ['https://app.example/cb'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('completes the code flow with a proof: a DPoP token bound to the key, read at userinfo with a proof', async () => {
    const tokens = await codeFlow();
    expect(tokens.token_type).toBe('DPoP');
    expect(tokens.claims()).toMatchObject({ sub: userId });
    const answer = await introspect(tokens.access_token!);
    expect(answer.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
    // openid-client sends Authorization: DPoP with a proof carrying ath, retrying once for our nonce.
    const info = await rp.userinfo(tokens.access_token!, { DPoP: key.privateKey });
    expect(info).toMatchObject({ sub: userId, name: 'Ada Lovelace' });
  });

  it('refuses the bound token at userinfo as Bearer, and with a proof of another key', async () => {
    const tokens = await codeFlow();
    const asBearer = rp.userinfo(tokens.access_token!);
    await expect(asBearer).rejects.toBeInstanceOf(errors.OPError);
    await expect(asBearer).rejects.toMatchObject({ error: 'invalid_token' });
    const response = await fetch(`${server.url}/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token!}` },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^DPoP /);
    expect(await response.text()).not.toContain(userId);
    await expect(rp.userinfo(tokens.access_token!, { DPoP: otherKey })).rejects.toMatchObject({
      error: 'invalid_dpop_proof',
    });
  });

  it("refreshes with the key (the public client's refresh token is bound), and not without it or with another", async () => {
    const tokens = await codeFlow();
    await expect(rp.refresh(tokens.refresh_token!)).rejects.toBeInstanceOf(errors.OPError);
    await expect(rp.refresh(tokens.refresh_token!, { DPoP: otherKey })).rejects.toBeInstanceOf(
      errors.OPError,
    );
    const refreshed = await rp.refresh(tokens.refresh_token!, { DPoP: key.privateKey });
    expect(refreshed.token_type).toBe('DPoP');
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.claims()).toMatchObject({ sub: userId });
    expect((await introspect(refreshed.access_token!)).body).toMatchObject({ active: true, cnf: { jkt } });
  });
});
