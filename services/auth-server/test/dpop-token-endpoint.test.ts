import { createHash, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { testRedisUrl } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { approvedCode, basic, createClient, createUser, postForm } from './support/oauth-helpers';
import { dpopKey, dpopProof, type DpopKey, type ProofOptions } from './support/dpop-helpers';

/**
 * RFC 9449 at POST /token: each rule of §4.3 refused with invalid_dpop_proof (400, §5), tokens bound to the
 * proof's key (token_type DPoP, cnf.jkt), server nonces (§8) and the per-client requirement (§5.2). Two
 * instances share Postgres and Redis: a proof's jti is single use across them.
 */
describe('DPoP proofs at /token (RFC 9449 §4.3, §5)', () => {
  let a: RunningAuthServer;
  let b: RunningAuthServer;
  let jwtClient: { clientId: string; secret?: string };
  let opaqueClient: { clientId: string; secret?: string };
  let user: { userId: string };
  const key = dpopKey('ES256');
  const tokenUrl = () => `${a.config.ISSUER}/token`;
  const clientCredentials = (proof: string | undefined, who = jwtClient, server = a) =>
    postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      {
        authorization: basic(who.clientId, who.secret!),
        ...(proof === undefined ? {} : { dpop: proof }),
      },
    );
  const proofFor = (options: Partial<ProofOptions> = {}, k: DpopKey = key) =>
    dpopProof(k, { htu: tokenUrl(), ...options });
  const refused = async (proof: string, description: string | RegExp) => {
    const response = await clientCredentials(proof);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_dpop_proof');
    expect(response.body.error_description).toEqual(
      typeof description === 'string' ? description : expect.stringMatching(description),
    );
  };

  beforeAll(async () => {
    a = await startAuthServer({ REDIS_URL: testRedisUrl() }, { issuerIsUrl: true });
    b = await startAuthServer(
      { REDIS_URL: testRedisUrl(), ISSUER: a.config.ISSUER },
      { databaseUrl: a.config.DATABASE_URL },
    );
    jwtClient = await createClient(a, { token_format: 'jwt', jwt_alg: 'RS256' });
    opaqueClient = await createClient(a);
    user = await createUser(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('binds a JWT access token to the proof key: token_type DPoP and cnf.jkt (§5.1, §6.1)', async () => {
    for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256'] as const) {
      const k = alg === 'ES256' ? key : dpopKey(alg);
      const response = await clientCredentials(proofFor({}, k));
      expect(response.status).toBe(200);
      expect(response.body.token_type).toBe('DPoP');
      const claims = jwt.decode(response.body.access_token as string) as Record<string, unknown>;
      expect(claims.cnf).toEqual({ jkt: k.jkt });
    }
  });

  it('stays a Bearer token without a proof', async () => {
    const response = await clientCredentials(undefined);
    expect(response.status).toBe(200);
    expect(response.body.token_type).toBe('Bearer');
    expect((jwt.decode(response.body.access_token as string) as Record<string, unknown>).cnf).toBeUndefined();
  });

  it('binds the authorization code grant too, and ignores htu query and fragment (§4.3 item 9)', async () => {
    const { code, verifier } = await approvedCode(a, opaqueClient, user, 'search.read');
    const response = await postForm(
      `${a.url}/token`,
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'https://app.example/cb',
      },
      {
        authorization: basic(opaqueClient.clientId, opaqueClient.secret!),
        dpop: proofFor({ htu: `${tokenUrl()}?x=1#frag` }),
      },
    );
    expect(response.status).toBe(200);
    expect(response.body.token_type).toBe('DPoP');
  });

  it('refuses a proof for another method or another URI (§4.3 items 8, 9)', async () => {
    await refused(proofFor({ htm: 'GET' }), 'htm does not match the request method');
    await refused(proofFor({ htu: `${a.config.ISSUER}/revoke` }), 'htu does not match the request URI');
    await refused(proofFor({ htu: 'https://other.example/token' }), 'htu does not match the request URI');
  });

  it('refuses a stale or future iat (§4.3 item 11, §11.1)', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refused(
      proofFor({ iat: now - a.config.DPOP_PROOF_MAX_AGE_SECONDS - 5 }),
      'the DPoP proof is too old',
    );
    await refused(proofFor({ iat: now + 120 }), 'iat is in the future');
  });

  it('accepts a jti once, on any instance (§11.1, replay cache in Redis)', async () => {
    const proof = proofFor({ jti: randomUUID() });
    expect((await clientCredentials(proof)).status).toBe(200);
    const again = await clientCredentials(proof);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'the DPoP proof was already used (jti)',
    });
    const elsewhere = await clientCredentials(proof, jwtClient, b);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toBe('invalid_dpop_proof');
  });

  it('refuses a bad signature, a private key in jwk, a symmetric or unlisted alg, another typ', async () => {
    await refused(proofFor({ badSignature: true }), 'the DPoP proof signature does not verify');
    const withPrivate = { ...key.jwk, d: key.privateKey.export({ format: 'jwk' }).d };
    await refused(proofFor({ header: { jwk: withPrivate } }), 'jwk must not contain a private key');
    const secret = Buffer.alloc(32, 7);
    await refused(proofFor({ header: { alg: 'HS256' }, hmacKey: secret }), /^alg must be one of ES256, /);
    await refused(
      proofFor({
        header: { alg: 'HS256', jwk: { kty: 'oct', k: secret.toString('base64url') } },
        hmacKey: secret,
      }),
      /^alg must be one of /,
    );
    await refused(proofFor({ header: { alg: 'none' } }), /^alg must be one of /);
    await refused(proofFor({ header: { typ: 'JWT' } }), 'typ must be dpop+jwt');
    // An RSA key under ES256: the algorithm must fit the key (RFC 8725 §3.1).
    await refused(proofFor({ header: { jwk: dpopKey('RS256').jwk } }), 'jwk does not fit alg ES256');
    await refused('not-a-jwt', 'the DPoP proof is not a JWT');
    // Two DPoP headers (node joins them with a comma): §4.3 item 1.
    await refused(`${proofFor()}, ${proofFor()}`, 'the DPoP proof is not a JWT');
  });

  it('requires a proof from a client registered with dpop_bound_access_tokens (§5.2)', async () => {
    const strict = await createClient(a, { dpop_bound_access_tokens: true });
    expect(strict.body.dpop_bound_access_tokens).toBe(true);
    const bare = await clientCredentials(undefined, strict);
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'this client must send a DPoP proof',
    });
    const bound = await clientCredentials(proofFor(), strict);
    expect(bound.status).toBe(200);
    expect(bound.body.token_type).toBe('DPoP');
  });

  it('advertises its proof algorithms in discovery (§5.1)', async () => {
    const metadata = (await (await fetch(`${a.url}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.dpop_signing_alg_values_supported).toEqual(
      expect.arrayContaining(['ES256', 'PS256', 'RS256', 'EdDSA']),
    );
    expect(metadata.dpop_signing_alg_values_supported).not.toContain('HS256');
  });
});

describe('DPoP server nonces at /token (RFC 9449 §8)', () => {
  let a: RunningAuthServer;
  let b: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  const key = dpopKey('ES256');
  const post = (server: RunningAuthServer, proof: string) =>
    postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials' },
      {
        authorization: basic(client.clientId, client.secret!),
        dpop: proof,
      },
    );

  beforeAll(async () => {
    a = await startAuthServer({ DPOP_NONCE_REQUIRED: 'true' }, { issuerIsUrl: true });
    b = await startAuthServer(
      { DPOP_NONCE_REQUIRED: 'true', ISSUER: a.config.ISSUER },
      { databaseUrl: a.config.DATABASE_URL },
    );
    client = await createClient(a, { scopes: ['search.read'] });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('answers use_dpop_nonce with a DPoP-Nonce, then takes the retry carrying it, on any instance', async () => {
    const htu = `${a.config.ISSUER}/token`;
    const first = await post(a, dpopProof(key, { htu }));
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toEqual(expect.stringMatching(/^[\w-]{20,}$/));
    const retry = await post(a, dpopProof(key, { htu, nonce: nonce! }));
    expect(retry.status).toBe(200);
    expect(retry.body.token_type).toBe('DPoP');
    expect(retry.headers.get('dpop-nonce')).toBe(nonce);
    // Stateless: the other instance accepts the nonce it never handed out.
    expect((await post(b, dpopProof(key, { htu, nonce: nonce! }))).status).toBe(200);
    const wrong = await post(
      a,
      dpopProof(key, { htu, nonce: createHash('sha256').update('x').digest('base64url') }),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('use_dpop_nonce');
  });
});
