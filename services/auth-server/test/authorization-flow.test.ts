import jwt from 'jsonwebtoken';
import { OAuthError } from '@acme/common';
import { AuthorizeError } from '../src/domain/authorize/authorization-flow';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createClient, createResourceServer, createUser, introspect, pkce } from './support/oauth-helpers';

describe('AuthorizationFlow: the protocol half of /authorize (RFC 6749 §4.1, RFC 9700, OIDC Core §3)', () => {
  let server: RunningAuthServer;
  let web: { clientId: string };
  let spa: { clientId: string };
  let native: { clientId: string };
  let user: { userId: string };
  let rs: { id: string; secret: string };
  const { challenge } = pkce();
  const parseError = async (params: Record<string, unknown>) => {
    try {
      await server.core.flow.parse(params);
    } catch (error) {
      if (error instanceof AuthorizeError) return error;
      throw error;
    }
    throw new Error('parse accepted the request');
  };
  beforeAll(async () => {
    server = await startAuthServer();
    web = await createClient(server);
    spa = await createClient(server, {
      client_type: 'public',
      grant_types: ['authorization_code', 'implicit'],
      response_types: ['code', 'token', 'id_token token'],
    });
    native = await createClient(server, {
      client_type: 'public',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/cb'],
      grant_types: ['authorization_code'],
    });
    user = await createUser(server);
    rs = await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('refuses an unknown client without a redirect (S2)', async () => {
    const error = await parseError({
      client_id: 'nope',
      redirect_uri: 'https://app.example/cb',
      response_type: 'code',
    });
    expect(error.redirectable).toBe(false);
    expect(error.request).toBeUndefined();
  });

  it.each([
    'https://app.example/cb/',
    'https://app.example/cb?x=1',
    'https://app.example/CB',
    'https://app.example.evil/cb',
    'https://app.example:8443/cb',
    'http://app.example/cb',
    'https://app.example/cb#frag',
  ])('refuses the unregistered redirect_uri %s without a redirect (S1)', async (redirectUri) => {
    const error = await parseError({
      client_id: web.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'search.read',
    });
    expect(error.redirectable).toBe(false);
  });

  it('accepts any port on a native loopback redirect (RFC 8252 §7.3), and only there', async () => {
    const request = await server.core.flow.parse({
      client_id: native.clientId,
      redirect_uri: 'http://127.0.0.1:51234/cb',
      response_type: 'code',
      scope: 'search.read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(request.redirectUri).toBe('http://127.0.0.1:51234/cb');
    const other = await parseError({
      client_id: native.clientId,
      redirect_uri: 'http://127.0.0.1:51234/other',
      response_type: 'code',
    });
    expect(other.redirectable).toBe(false);
  });

  it('redirects a bad scope with invalid_scope, only to the registered URI, with state and iss', async () => {
    const error = await parseError({
      client_id: web.clientId,
      response_type: 'code',
      scope: 'search.read admin',
      state: 'st',
    });
    expect(error.redirectable).toBe(true);
    expect(error.error.code).toBe('invalid_scope');
    const url = new URL(server.core.flow.errorRedirect(error.request!, error.error));
    expect(`${url.origin}${url.pathname}`).toBe('https://app.example/cb');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      error: 'invalid_scope',
      error_description: 'scope not allowed for this client: admin',
      state: 'st',
      iss: server.config.ISSUER,
    });
  });

  it.each([
    [
      { response_type: 'code', scope: 'search.read' },
      'invalid_request',
      'PKCE (code_challenge with S256) is required for public clients',
    ],
    [
      {
        response_type: 'code',
        scope: 'search.read',
        code_challenge: challenge,
        code_challenge_method: 'plain',
      },
      'invalid_request',
      'code_challenge_method must be S256',
    ],
    [
      { response_type: 'code', scope: 'search.read', code_challenge: challenge },
      'invalid_request',
      'code_challenge_method is required (S256)',
    ],
    [
      { response_type: 'code id_token', scope: 'openid' },
      'unsupported_response_type',
      'response_type code id_token is not supported',
    ],
    [{ scope: 'search.read' }, 'invalid_request', 'response_type is required'],
    [{ response_type: 'id_token token', scope: 'openid' }, 'invalid_request', 'nonce is required'],
    [
      { response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' },
      'invalid_scope',
      'scope is required',
    ],
  ])('redirects %j with %s', async (params, code, description) => {
    const error = await parseError({
      client_id: spa.clientId,
      redirect_uri: 'https://app.example/cb',
      ...params,
    });
    expect(error.redirectable).toBe(true);
    expect(error.error.toBody()).toEqual({ error: code, error_description: description });
  });

  it('refuses response_type=token for a client not allowed the implicit flow (S8)', async () => {
    const error = await parseError({ client_id: web.clientId, response_type: 'token', scope: 'search.read' });
    expect(error.error.code).toBe('unsupported_response_type');
    const url = new URL(server.core.flow.errorRedirect(error.request!, error.error));
    expect(url.hash).toContain('error=unsupported_response_type');
  });

  it('refuses a duplicated parameter as non-redirectable', async () => {
    const error = await parseError({ client_id: web.clientId, scope: ['a', 'b'] });
    expect(error.redirectable).toBe(false);
  });

  it('issues implicit tokens in the fragment for an allowed client, with an ID token bound by nonce and at_hash', async () => {
    const request = await server.core.flow.parse({
      client_id: spa.clientId,
      response_type: 'id_token token',
      scope: 'openid search.read',
      nonce: 'n-1',
      state: 's',
    });
    const url = new URL(
      await server.core.flow.approve(request, { userId: user.userId, authTime: new Date() }, request.scopes),
    );
    expect(url.search).toBe('');
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.get('state')).toBe('s');
    expect(fragment.get('iss')).toBe(server.config.ISSUER);
    expect(fragment.get('refresh_token')).toBeNull();
    expect(jwt.decode(fragment.get('id_token')!)).toMatchObject({
      nonce: 'n-1',
      sub: user.userId,
      aud: spa.clientId,
    });
  });

  it('narrows the grant to the scopes the user approved', async () => {
    const request = await server.core.flow.parse({
      client_id: web.clientId,
      response_type: 'code',
      scope: 'openid search.read email',
    });
    const url = new URL(
      await server.core.flow.approve(request, { userId: user.userId, authTime: new Date() }, [
        'openid',
        'search.read',
      ]),
    );
    const code = url.searchParams.get('code')!;
    const { rows } = await server.pool.query('SELECT scopes FROM authorization_codes WHERE code_hash = $1', [
      server.core.ctx.hasher.hash(code),
    ]);
    expect(rows[0].scopes).toEqual(['openid', 'search.read']);
  });

  it('restricts the audience to the requested resource (RFC 8707) and refuses an unknown one with invalid_target', async () => {
    const unknown = await parseError({
      client_id: web.clientId,
      response_type: 'code',
      scope: 'search.read',
      resource: 'https://x.example',
    });
    expect(unknown.redirectable).toBe(true);
    expect(unknown.error.code).toBe('invalid_target');
    const { audience } = (
      await server.pool.query('SELECT audience FROM resource_servers WHERE id = $1', [rs.id])
    ).rows[0];
    const request = await server.core.flow.parse({
      client_id: web.clientId,
      response_type: 'code',
      scope: 'search.read',
      resource: audience,
    });
    const url = new URL(
      await server.core.flow.approve(request, { userId: user.userId, authTime: new Date() }, request.scopes),
    );
    const { rows } = await server.pool.query(
      'SELECT resources FROM authorization_codes WHERE code_hash = $1',
      [server.core.ctx.hasher.hash(url.searchParams.get('code')!)],
    );
    expect(rows[0].resources).toEqual([audience]);
  });

  it('builds an access_denied redirect for a deny', () => {
    const url = new URL(
      server.core.flow.errorRedirect(
        { redirectUri: 'https://app.example/cb', responseMode: 'query', state: 'z' },
        new OAuthError('access_denied', 'the user denied the request'),
      ),
    );
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('z');
    expect(url.searchParams.get('iss')).toBe(server.config.ISSUER);
  });

  it('issues a token usable at the registered resource server from the implicit flow', async () => {
    const request = await server.core.flow.parse({
      client_id: spa.clientId,
      response_type: 'token',
      scope: 'search.read',
    });
    const url = new URL(
      await server.core.flow.approve(request, { userId: user.userId, authTime: new Date() }, request.scopes),
    );
    const token = new URLSearchParams(url.hash.slice(1)).get('access_token')!;
    expect((await introspect(server, rs, token)).body).toMatchObject({
      active: true,
      scope: 'search.read',
      sub: user.userId,
    });
  });
});
