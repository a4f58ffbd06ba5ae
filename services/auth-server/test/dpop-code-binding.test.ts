import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { approvedCode, basic, createClient, createUser, pkce, postForm } from './support/oauth-helpers';
import { dpopKey, dpopProof, type DpopKey } from './support/dpop-helpers';

/**
 * RFC 9449 §10: `dpop_jkt` in the authorization request binds the code to a key; §10.1: a DPoP proof at
 * PAR does the same (and must agree with a dpop_jkt sent along).
 */
describe('authorization codes bound with dpop_jkt (RFC 9449 §10)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string };
  const key = dpopKey('ES256');
  const redeem = (code: string, verifier: string, k: DpopKey | undefined) =>
    postForm(
      `${server.url}/token`,
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'https://app.example/cb',
      },
      {
        authorization: basic(client.clientId, client.secret!),
        ...(k ? { dpop: dpopProof(k, { htu: `${server.config.ISSUER}/token` }) } : {}),
      },
    );

  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    client = await createClient(server);
    user = await createUser(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('redeems a dpop_jkt-bound code only with a proof of that key', async () => {
    for (const other of [dpopKey('ES256'), undefined]) {
      const { code, verifier } = await approvedCode(server, client, user, 'search.read', {
        dpop_jkt: key.jkt,
      });
      const refused = await redeem(code, verifier, other);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        error: 'invalid_dpop_proof',
        error_description: 'the DPoP proof key does not match dpop_jkt',
      });
    }
    const { code, verifier } = await approvedCode(server, client, user, 'search.read', { dpop_jkt: key.jkt });
    const ok = await redeem(code, verifier, key);
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe('DPoP');
  });

  it('refuses a malformed dpop_jkt at /authorize', async () => {
    await expect(
      approvedCode(server, client, user, 'search.read', { dpop_jkt: 'short' }),
    ).rejects.toMatchObject({
      error: { code: 'invalid_request', description: 'malformed dpop_jkt' },
    });
  });

  it('binds the code to the key of a DPoP proof sent to PAR (§10.1), and refuses a disagreeing dpop_jkt', async () => {
    const push = (k: DpopKey, extra: Record<string, string> = {}) => {
      const { challenge } = pkce();
      return postForm(
        `${server.url}/par`,
        {
          response_type: 'code',
          redirect_uri: 'https://app.example/cb',
          scope: 'search.read',
          code_challenge: challenge,
          code_challenge_method: 'S256',
          ...extra,
        },
        {
          authorization: basic(client.clientId, client.secret!),
          dpop: dpopProof(k, { htu: `${server.config.ISSUER}/par` }),
        },
      );
    };
    const disagree = await push(key, { dpop_jkt: dpopKey('ES256').jkt });
    expect(disagree.status).toBe(400);
    expect(disagree.body.error).toBe('invalid_dpop_proof');
    const pushed = await push(key);
    expect(pushed.status).toBe(201);
    const request = await server.core.flow.parse({
      client_id: client.clientId,
      request_uri: pushed.body.request_uri as string,
    });
    expect(request.dpopJkt).toBe(key.jkt);
  });
});
