import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, introspect, postForm } from './support/oauth-helpers';
import { dpopKey, dpopProof } from './support/dpop-helpers';

/** RFC 9449 §6.2: introspection tells a resource server a token is bound, and to which key. */
describe('introspection of DPoP-bound tokens (RFC 9449 §6.2)', () => {
  let server: RunningAuthServer;
  let rs: { id: string; secret: string; audience: string };
  const key = dpopKey('ES256');
  const issue = async (format: 'opaque' | 'jwt', withProof: boolean) => {
    const client = await createClient(server, {
      token_format: format,
      scopes: ['search.read'],
      grant_types: ['client_credentials'],
    });
    const response = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', resource: rs.audience },
      {
        authorization: basic(client.clientId, client.secret!),
        ...(withProof ? { dpop: dpopProof(key, { htu: `${server.config.ISSUER}/token` }) } : {}),
      },
    );
    expect(response.status).toBe(200);
    return response.body.access_token as string;
  };

  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    rs = await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each(['opaque', 'jwt'] as const)(
    'answers token_type DPoP and cnf.jkt for a bound %s token',
    async (format) => {
      const token = await issue(format, true);
      const answer = await introspect(server, rs, token);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
      // Cached answers say the same.
      expect((await introspect(server, rs, token)).body).toMatchObject({
        token_type: 'DPoP',
        cnf: { jkt: key.jkt },
      });
      if (format === 'jwt') expect((jwt.decode(token) as { cnf: unknown }).cnf).toEqual({ jkt: key.jkt });
    },
  );

  it('answers Bearer and no cnf for a token issued without a proof', async () => {
    const answer = await introspect(server, rs, await issue('opaque', false));
    expect(answer.body).toMatchObject({ active: true, token_type: 'Bearer' });
    expect(answer.body.cnf).toBeUndefined();
  });

  it('signs cnf into a JWT introspection response too (RFC 9701)', async () => {
    const token = await issue('opaque', true);
    const response = await fetch(`${server.url}/token_info`, {
      method: 'POST',
      headers: {
        authorization: basic(rs.id, rs.secret),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/token-introspection+jwt',
      },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(response.status).toBe(200);
    const claims = jwt.decode(await response.text()) as { token_introspection: Record<string, unknown> };
    expect(claims.token_introspection).toMatchObject({ token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });
});
