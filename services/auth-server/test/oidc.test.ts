import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  basic,
  codeFlowTokens,
  createClient,
  createResourceServer,
  createUser,
  postForm,
} from './support/oauth-helpers';

describe('OpenID Connect: discovery, JWKS and userinfo', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string; username: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
    user = await createUser(server);
    await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'])(
    'publishes metadata at %s (RFC 8414, S5, S11)',
    async (path) => {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      const issuer = server.config.ISSUER;
      expect(await response.json()).toMatchObject({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        introspection_endpoint: `${issuer}/token_info`,
        revocation_endpoint: `${issuer}/revoke`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        code_challenge_methods_supported: ['S256'],
        ui_locales_supported: ['en', 'de'],
        authorization_response_iss_parameter_supported: true,
        id_token_signing_alg_values_supported: ['RS256'],
      });
    },
  );

  it.each(['/token', '/revoke', '/userinfo'])(
    'answers a CORS preflight on %s for browser clients',
    async (path) => {
      const response = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://spa.example', 'access-control-request-method': 'POST' },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      // RFC 9449: a browser client sends DPoP and reads DPoP-Nonce and the challenge.
      expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, DPoP');
      expect(response.headers.get('access-control-expose-headers')).toBe('DPoP-Nonce, WWW-Authenticate');
    },
  );

  it('does not enable CORS on /token_info (server-to-server only)', async () => {
    const response = await fetch(`${server.url}/token_info`, {
      method: 'OPTIONS',
      headers: { origin: 'https://spa.example', 'access-control-request-method': 'POST' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('publishes an RS256 and an ES256 public key in the JWKS', async () => {
    const jwks = (await (await fetch(`${server.url}/jwks`)).json()) as {
      keys: Array<Record<string, string>>;
    };
    expect(jwks.keys.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256']);
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');
  });

  it('answers GET and POST /userinfo with the claims the scopes release', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'openid email');
    const access = token.body.access_token as string;
    const get = await fetch(`${server.url}/userinfo`, { headers: { authorization: `Bearer ${access}` } });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({
      sub: user.userId,
      email: `${user.username}@example.com`,
      email_verified: true,
    });
    const post = await postForm(`${server.url}/userinfo`, { access_token: access });
    expect(post.body).toEqual({
      sub: user.userId,
      email: `${user.username}@example.com`,
      email_verified: true,
    });
  });

  it('answers a missing token with 401 and a bare Bearer challenge (RFC 6750 §3.1)', async () => {
    const response = await fetch(`${server.url}/userinfo`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="userinfo"');
  });

  it('answers an invalid token with 401 error="invalid_token"', async () => {
    const response = await fetch(`${server.url}/userinfo`, { headers: { authorization: 'Bearer nope' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await response.json()).toEqual({
      error: 'invalid_token',
      error_description: 'the access token is invalid',
    });
  });

  it('answers a token without openid with 403 insufficient_scope', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read');
    const response = await fetch(`${server.url}/userinfo`, {
      headers: { authorization: `Bearer ${token.body.access_token as string}` },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('refuses a client-credentials token at userinfo (no user)', async () => {
    const cc = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'openid' },
      {
        authorization: basic(client.clientId, client.secret!),
      },
    );
    const response = await fetch(`${server.url}/userinfo`, {
      headers: { authorization: `Bearer ${cc.body.access_token as string}` },
    });
    expect(response.status).toBe(401);
  });
});
