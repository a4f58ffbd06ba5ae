import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  basic,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  pkce,
  redeemCode,
} from './support/oauth-helpers';

/** RFC 8707 §2: `resource` may be repeated; the access token's audience is every one of them. */
describe('several resource indicators (RFC 8707)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string };
  let search: { id: string; secret: string; audience: string };
  let other: { id: string; secret: string; audience: string };
  let third: { id: string; secret: string; audience: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
    user = await createUser(server);
    search = await createResourceServer(server, ['search.read']);
    other = await createResourceServer(server, ['other.read']);
    third = await createResourceServer(server, ['search.read', 'other.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  const clientCredentials = (body: string) =>
    fetch(`${server.url}/token`, {
      method: 'POST',
      headers: {
        authorization: basic(client.clientId, client.secret!),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
    });

  it('issues a client-credentials token for every requested resource and no other', async () => {
    const response = await clientCredentials(
      new URLSearchParams([
        ['grant_type', 'client_credentials'],
        ['scope', 'search.read other.read'],
        ['resource', search.audience],
        ['resource', other.audience],
      ]).toString(),
    );
    expect(response.status).toBe(200);
    const access = ((await response.json()) as { access_token: string }).access_token;
    expect((await introspect(server, search, access)).body).toMatchObject({
      active: true,
      scope: 'search.read',
      aud: [search.audience, other.audience],
    });
    expect((await introspect(server, other, access)).body).toMatchObject({
      active: true,
      scope: 'other.read',
    });
    expect((await introspect(server, third, access)).body).toEqual({ active: false });
  });

  it('refuses the whole request with invalid_target when one of the resources is unregistered', async () => {
    const response = await clientCredentials(
      new URLSearchParams([
        ['grant_type', 'client_credentials'],
        ['scope', 'search.read'],
        ['resource', search.audience],
        ['resource', 'https://nowhere.example'],
      ]).toString(),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_target',
      error_description: 'unknown resource: https://nowhere.example',
    });
  });

  it('still refuses other repeated parameters at /token', async () => {
    const response = await clientCredentials('grant_type=client_credentials&scope=a&scope=b');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'duplicate parameter: scope',
    });
  });

  it('GET /authorize with two resources goes on to sign-in instead of an error redirect', async () => {
    const { challenge } = pkce();
    const query = new URLSearchParams([
      ['client_id', client.clientId],
      ['redirect_uri', 'https://app.example/cb'],
      ['response_type', 'code'],
      ['scope', 'search.read other.read'],
      ['code_challenge', challenge],
      ['code_challenge_method', 'S256'],
      ['resource', search.audience],
      ['resource', other.audience],
    ]);
    const response = await fetch(`${server.url}/authorize?${query}`, { redirect: 'manual' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('name="password"');
  });

  it('carries every resource of the authorization request into the code-flow access token', async () => {
    const { verifier, challenge } = pkce();
    const request = await server.core.flow.parse({
      client_id: client.clientId,
      redirect_uri: 'https://app.example/cb',
      response_type: 'code',
      scope: 'search.read other.read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: [search.audience, other.audience],
    });
    const url = new URL(
      await server.core.flow.approve(request, { userId: user.userId, authTime: new Date() }, request.scopes),
    );
    const token = await redeemCode(server, client, {
      code: url.searchParams.get('code')!,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    const access = token.body.access_token as string;
    expect((await introspect(server, search, access)).body).toMatchObject({
      active: true,
      aud: [search.audience, other.audience],
    });
    expect((await introspect(server, other, access)).body.active).toBe(true);
    expect((await introspect(server, third, access)).body).toEqual({ active: false });
  });
});
