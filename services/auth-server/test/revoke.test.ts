import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  basic,
  codeFlowTokens,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  postForm,
} from './support/oauth-helpers';

describe('POST /revoke (RFC 7009)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string };
  let rs: { id: string; secret: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
    user = await createUser(server);
    rs = await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });
  const revoke = (token: string, who = client) =>
    postForm(`${server.url}/revoke`, { token }, { authorization: basic(who.clientId, who.secret!) });

  it('answers 200 with no-store for an unknown token (§2.2)', async () => {
    const response = await revoke('never-issued');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('revokes the whole grant when given a refresh token', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read');
    expect((await revoke(token.body.refresh_token as string)).status).toBe(200);
    expect((await introspect(server, rs, token.body.access_token as string)).body).toEqual({ active: false });
    const refresh = await postForm(
      `${server.url}/token`,
      { grant_type: 'refresh_token', refresh_token: token.body.refresh_token as string },
      {
        authorization: basic(client.clientId, client.secret!),
      },
    );
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it("refuses to revoke another client's token and leaves it active", async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read');
    const other = await createClient(server);
    const response = await revoke(token.body.access_token as string, other);
    expect(response.status).toBe(400);
    expect((await introspect(server, rs, token.body.access_token as string)).body.active).toBe(true);
  });

  it('requires client authentication', async () => {
    const response = await postForm(`${server.url}/revoke`, { token: 'x' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Basic');
  });

  it('lets a public client revoke its own token with client_id alone', async () => {
    const spa = await createClient(server, { client_type: 'public', grant_types: ['authorization_code'] });
    const { token } = await codeFlowTokens(server, spa, user, 'search.read');
    const response = await postForm(`${server.url}/revoke`, {
      token: token.body.access_token as string,
      client_id: spa.clientId,
    });
    expect(response.status).toBe(200);
    expect((await introspect(server, rs, token.body.access_token as string)).body).toEqual({ active: false });
  });
});
