import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { approvedCode, basic, createClient, createUser, postForm } from './support/oauth-helpers';
import { dpopKey, dpopProof, type DpopKey } from './support/dpop-helpers';

/**
 * RFC 9449 §5.0: refresh tokens issued to a public client with DPoP are bound to its key (it has no other
 * credential); a confidential client's are not (its authentication binds them).
 */
describe('DPoP-bound refresh tokens (RFC 9449 §5.0)', () => {
  let server: RunningAuthServer;
  let user: { userId: string };
  const key = dpopKey('ES256');
  const tokenUrl = () => `${server.config.ISSUER}/token`;
  const proofHeader = (k: DpopKey | undefined) =>
    k ? { dpop: dpopProof(k, { htu: tokenUrl() }) } : ({} as Record<string, string>);
  const codeTokens = async (client: { clientId: string; secret?: string }, k: DpopKey) => {
    const { code, verifier } = await approvedCode(server, client, user, 'search.read offline_access');
    const response = await postForm(
      `${server.url}/token`,
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'https://app.example/cb',
        ...(client.secret ? {} : { client_id: client.clientId }),
      },
      {
        ...(client.secret ? { authorization: basic(client.clientId, client.secret) } : {}),
        ...proofHeader(k),
      },
    );
    expect(response.status).toBe(200);
    expect(response.body.token_type).toBe('DPoP');
    return response.body.refresh_token as string;
  };
  const refresh = (client: { clientId: string; secret?: string }, token: string, k: DpopKey | undefined) =>
    postForm(
      `${server.url}/token`,
      {
        grant_type: 'refresh_token',
        refresh_token: token,
        ...(client.secret ? {} : { client_id: client.clientId }),
      },
      {
        ...(client.secret ? { authorization: basic(client.clientId, client.secret) } : {}),
        ...proofHeader(k),
      },
    );

  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    user = await createUser(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("refuses a public client's refresh with another key or without a proof, and keeps it usable", async () => {
    const client = await createClient(server, {
      client_type: 'public',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const token = await codeTokens(client, key);
    for (const other of [dpopKey('ES256'), undefined]) {
      const stolen = await refresh(client, token, other);
      expect(stolen.status).toBe(400);
      expect(stolen.body).toEqual({
        error: 'invalid_grant',
        error_description: 'refresh token is bound to another DPoP key',
      });
    }
    // The holder of the key still refreshes (nothing was rotated or revoked by the attempts)…
    const own = await refresh(client, token, key);
    expect(own.status).toBe(200);
    expect(own.body.token_type).toBe('DPoP');
    // …and the rotated refresh token is bound to the same key.
    const next = own.body.refresh_token as string;
    expect((await refresh(client, next, dpopKey('ES256'))).body.error).toBe('invalid_grant');
    expect((await refresh(client, next, key)).status).toBe(200);
  });

  it("leaves a confidential client's refresh token unbound: another key or none works", async () => {
    const client = await createClient(server);
    const token = await codeTokens(client, key);
    const bare = await refresh(client, token, undefined);
    expect(bare.status).toBe(200);
    expect(bare.body.token_type).toBe('Bearer');
    const other = await refresh(client, bare.body.refresh_token as string, dpopKey('EdDSA'));
    expect(other.status).toBe(200);
    expect(other.body.token_type).toBe('DPoP');
  });
});
