import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  authorize,
  basic,
  codeFlowTokens,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  pkce,
  postForm,
  redeemCode,
} from './support/oauth-helpers';

describe('POST /token with authorization_code (RFC 6749 §4.1.3, RFC 7636, RFC 9700)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string; username: string };
  let rs: { id: string; secret: string; audience: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
    user = await createUser(server);
    rs = await createResourceServer(server, ['search.read', 'search.write']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('exchanges a code with PKCE for an opaque access token, a refresh token and an ID token', async () => {
    const { token } = await codeFlowTokens(
      server,
      client,
      user,
      'openid profile email offline_access search.read',
    );
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    expect(token.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      id_token: expect.any(String),
      scope: 'openid profile email offline_access search.read',
    });
    const idToken = jwt.decode(token.body.id_token as string, { complete: true });
    expect(idToken?.header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(idToken?.payload).toMatchObject({
      iss: server.config.ISSUER,
      sub: user.userId,
      aud: client.clientId,
      azp: client.clientId,
      name: 'Ada Lovelace',
      email_verified: true,
      at_hash: expect.any(String),
      auth_time: expect.any(Number),
    });
    const stored = await server.pool.query('SELECT count(*)::int AS n FROM tokens WHERE token_hash = $1', [
      Buffer.from(token.body.access_token as string),
    ]);
    expect(stored.rows[0].n).toBe(0); // stored hashed, never in the clear
    const view = await introspect(server, rs, token.body.access_token as string);
    expect(view.body).toMatchObject({
      active: true,
      scope: 'search.read',
      sub: user.userId,
      username: user.username,
    });
  });

  it('returns code, state and iss (RFC 9207) on the redirect', async () => {
    const { challenge } = pkce();
    const url = await authorize(
      server,
      {
        client_id: client.clientId,
        response_type: 'code',
        scope: 'search.read',
        state: 'xyz',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
      user,
    );
    expect(`${url.origin}${url.pathname}`).toBe('https://app.example/cb');
    expect(url.searchParams.get('state')).toBe('xyz');
    expect(url.searchParams.get('iss')).toBe(server.config.ISSUER);
    expect(url.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
  });

  it('rejects a reused code and revokes the tokens issued from it (RFC 9700 §4.2.4)', async () => {
    const { code, verifier, token } = await codeFlowTokens(
      server,
      client,
      user,
      'openid offline_access search.read',
    );
    const again = await redeemCode(server, client, {
      code,
      code_verifier: verifier,
    });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      error: 'invalid_grant',
      error_description: 'authorization code already used',
    });
    expect((await introspect(server, rs, token.body.access_token as string)).body).toEqual({ active: false });
    const refresh = await postForm(
      `${server.url}/token`,
      {
        grant_type: 'refresh_token',
        refresh_token: token.body.refresh_token as string,
      },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(refresh.body.error).toBe('invalid_grant');
  });

  /** The redirect of an approved code request for search.read, with an S256 challenge when given. */
  const searchReadCode = (challenge?: string) =>
    authorize(
      server,
      {
        client_id: client.clientId,
        response_type: 'code',
        scope: 'search.read',
        ...(challenge ? { code_challenge: challenge, code_challenge_method: 'S256' } : {}),
      },
      user,
    );

  it('refuses a wrong verifier, a missing verifier and a verifier without a challenge (S3, S4)', async () => {
    const url1 = await searchReadCode(pkce().challenge);
    const wrong = await redeemCode(server, client, {
      code: url1.searchParams.get('code')!,
      code_verifier: pkce().verifier,
    });
    expect(wrong.body).toEqual({
      error: 'invalid_grant',
      error_description: 'code_verifier does not match the code_challenge',
    });

    const url2 = await searchReadCode();
    const downgrade = await redeemCode(server, client, {
      code: url2.searchParams.get('code')!,
      code_verifier: pkce().verifier,
    });
    expect(downgrade.body).toEqual({
      error: 'invalid_grant',
      error_description: 'code_verifier sent but no code_challenge was',
    });

    const url3 = await searchReadCode(pkce().challenge);
    const missing = await redeemCode(server, client, {
      code: url3.searchParams.get('code')!,
    });
    expect(missing.body).toEqual({ error: 'invalid_grant', error_description: 'code_verifier required' });
  });

  it('binds the code to its client and redirect_uri', async () => {
    const other = await createClient(server);
    const { verifier, challenge } = pkce();
    const url = await searchReadCode(challenge);
    const stolen = await redeemCode(server, other, {
      code: url.searchParams.get('code')!,
      code_verifier: verifier,
    });
    expect(stolen.body).toEqual({
      error: 'invalid_grant',
      error_description: 'code was issued to another client',
    });
    const legit = await redeemCode(server, client, {
      code: url.searchParams.get('code')!,
      code_verifier: verifier,
    });
    expect(legit.status).toBe(200); // the thief's attempt did not burn the code

    const url2 = await searchReadCode(challenge);
    const wrongUri = await redeemCode(server, client, {
      code: url2.searchParams.get('code')!,
      redirect_uri: 'https://app.example/other',
      code_verifier: verifier,
    });
    expect(wrongUri.body.error).toBe('invalid_grant');
  });

  it('lets exactly one of two concurrent redemptions of a code succeed', async () => {
    const { verifier, challenge } = pkce();
    const url = await searchReadCode(challenge);
    const form = { code: url.searchParams.get('code')!, code_verifier: verifier };
    const results = await Promise.all([1, 2].map(() => redeemCode(server, client, form)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    // The loser is a replay: the grant is revoked, so even the winner's token is dead (RFC 9700 §4.2.4).
    const winner = results.find((r) => r.status === 200)!;
    expect((await introspect(server, rs, winner.body.access_token as string)).body).toEqual({
      active: false,
    });
  });

  it('refuses an expired code', async () => {
    const { verifier, challenge } = pkce();
    const url = await searchReadCode(challenge);
    await server.pool.query("UPDATE authorization_codes SET expires_at = now() - interval '1 second'");
    const response = await redeemCode(server, client, {
      code: url.searchParams.get('code')!,
      code_verifier: verifier,
    });
    expect(response.body).toEqual({
      error: 'invalid_grant',
      error_description: 'authorization code expired',
    });
  });

  it('gives an OIDC request a refresh token only with offline_access (OIDC Core §11)', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'openid search.read');
    expect(token.status).toBe(200);
    expect(token.body.refresh_token).toBeUndefined();
    expect(token.body.id_token).toEqual(expect.any(String));
  });

  it('lets a public client redeem with client_id and PKCE, without a secret', async () => {
    const spa = await createClient(server, {
      client_type: 'public',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const { token } = await codeFlowTokens(server, spa, user, 'search.read');
    expect(token.status).toBe(200);
    expect(token.body.access_token).toEqual(expect.any(String));
  });
});
