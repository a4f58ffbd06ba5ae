import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  admin,
  basic,
  codeFlowTokens,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  postForm,
  type Json,
} from './support/oauth-helpers';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';

/** RFC 8693 over HTTP: a service exchanges the user's access token for one to call another service. */
describe('token exchange (RFC 8693)', () => {
  let server: RunningAuthServer;
  let orders: { id: string; secret: string; audience: string };
  let search: { id: string; secret: string; audience: string };
  let billing: { id: string; secret: string; audience: string };
  let user: { userId: string; username: string };
  /** The web app the user signed in to; its tokens are the subject tokens. */
  let web: { clientId: string; secret?: string };
  /** The orders service: a client allowed to exchange, registered for orders and search scopes. */
  let service: { clientId: string; secret?: string };
  beforeAll(async () => {
    server = await startAuthServer();
    orders = await createResourceServer(server, ['orders.read']);
    search = await createResourceServer(server, ['search.read']);
    billing = await createResourceServer(server, ['billing.read']);
    user = await createUser(server);
    web = await createClient(server, {
      scopes: ['openid', 'offline_access', 'orders.read', 'search.read', 'billing.read'],
    });
    service = await exchangeClient();
  });
  afterAll(async () => {
    await server.stop();
  });

  const exchangeClient = (overrides: Json = {}) =>
    createClient(server, {
      name: 'Orders service',
      redirect_uris: [],
      grant_types: [GRANT, 'client_credentials'],
      scopes: ['orders.read', 'search.read'],
      access_token_ttl_seconds: 600,
      ...overrides,
    });
  /** The user's access token from the web app's code flow. */
  const userToken = async (scope = 'openid orders.read search.read billing.read') =>
    (await codeFlowTokens(server, web, user, scope)).token.body;
  const exchange = (
    client: { clientId: string; secret?: string },
    form: Record<string, string>,
    extra: [string, string][] = [],
  ) => {
    const body = new URLSearchParams({ grant_type: GRANT, subject_token_type: ACCESS, ...form });
    for (const [name, value] of extra) body.append(name, value);
    return fetch(`${server.url}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(client.clientId, client.secret!),
      },
      body: body.toString(),
    }).then(async (response) => ({
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Json,
    }));
  };
  const errorOf = (answer: { status: number; body: Json }) => [answer.status, answer.body.error];

  it('issues an access token for the requested audience, for the same user, with no refresh token', async () => {
    const subject = await userToken();
    const answer = await exchange(service, {
      subject_token: subject.access_token as string,
      audience: search.audience,
      scope: 'search.read',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({
      access_token: expect.any(String),
      issued_token_type: ACCESS,
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'search.read',
    });
    const seen = await introspect(server, search, answer.body.access_token as string);
    expect(seen.body).toMatchObject({
      active: true,
      scope: 'search.read',
      client_id: service.clientId,
      sub: user.userId,
      username: user.username,
      aud: [search.audience],
    });
    expect(seen.body.act).toBeUndefined();
    // Audience-restricted: the orders service does not accept it.
    expect((await introspect(server, orders, answer.body.access_token as string)).body).toEqual({
      active: false,
    });
  });

  it('keeps the subject token audience, narrowed to what the client may target, when none is asked', async () => {
    const subject = await userToken();
    const answer = await exchange(service, { subject_token: subject.access_token as string });
    expect(answer.status).toBe(200);
    // The subject token is for orders, search and billing; the client may target only the first two.
    expect(answer.body.scope).toBe('orders.read search.read');
    const seen = await introspect(server, orders, answer.body.access_token as string);
    expect(seen.body).toMatchObject({ active: true, scope: 'orders.read' });
    expect(new Set(seen.body.aud as string[])).toEqual(new Set([orders.audience, search.audience]));
  });

  it('takes resource (RFC 8707) as a target too, and several targets at once', async () => {
    const subject = await userToken();
    const answer = await exchange(service, { subject_token: subject.access_token as string }, [
      ['resource', orders.audience],
      ['audience', search.audience],
    ]);
    expect(answer.status).toBe(200);
    const seen = await introspect(server, search, answer.body.access_token as string);
    expect(seen.body.aud).toEqual([orders.audience, search.audience]);
  });

  it('puts the actor in act (introspection and JWT), nested inside the subject token act', async () => {
    const jwtService = await exchangeClient({ token_format: 'jwt', jwt_alg: 'RS256' });
    const actorToken = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      { authorization: basic(jwtService.clientId, jwtService.secret!) },
    );
    const subject = await userToken();
    const first = await exchange(jwtService, {
      subject_token: subject.access_token as string,
      actor_token: actorToken.body.access_token as string,
      actor_token_type: ACCESS,
      scope: 'search.read orders.read',
    });
    expect(first.status).toBe(200);
    const firstAct = { client_id: jwtService.clientId };
    const claims = jwt.decode(first.body.access_token as string) as Json;
    expect(claims).toMatchObject({ sub: user.userId, client_id: jwtService.clientId, act: firstAct });
    expect((await introspect(server, search, first.body.access_token as string)).body).toMatchObject({
      active: true,
      sub: user.userId,
      act: firstAct,
    });

    // A second hop: the search service exchanges the first exchanged token, acting as itself.
    const searchService = await exchangeClient({ name: 'Search service' });
    const actor2 = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      { authorization: basic(searchService.clientId, searchService.secret!) },
    );
    const second = await exchange(searchService, {
      subject_token: first.body.access_token as string,
      actor_token: actor2.body.access_token as string,
      actor_token_type: ACCESS,
      audience: search.audience,
    });
    expect(second.status).toBe(200);
    const nested = { client_id: searchService.clientId, act: firstAct };
    expect((await introspect(server, search, second.body.access_token as string)).body).toMatchObject({
      active: true,
      sub: user.userId,
      client_id: searchService.clientId,
      scope: 'search.read',
      act: nested,
    });
    // Without an actor token the chain is kept as it is.
    const third = await exchange(searchService, {
      subject_token: second.body.access_token as string,
      audience: search.audience,
    });
    expect((await introspect(server, search, third.body.access_token as string)).body).toMatchObject({
      act: nested,
    });
  });

  it('bounds the delegation chain: a sixth actor is invalid_request', async () => {
    const actorToken = async () =>
      (
        await postForm(
          `${server.url}/token`,
          { grant_type: 'client_credentials', scope: 'search.read' },
          { authorization: basic(service.clientId, service.secret!) },
        )
      ).body.access_token as string;
    let token = (await userToken()).access_token as string;
    for (let hop = 1; hop <= 6; hop += 1) {
      const answer = await exchange(service, {
        subject_token: token,
        actor_token: await actorToken(),
        actor_token_type: ACCESS,
        audience: search.audience,
      });
      if (hop === 6) {
        expect(errorOf(answer)).toEqual([400, 'invalid_request']);
        break;
      }
      expect(answer.status).toBe(200);
      token = answer.body.access_token as string;
    }
    const act = (await introspect(server, search, token)).body.act as Json;
    expect(JSON.stringify(act).match(/client_id/g)).toHaveLength(5);
  });

  it('names the actor user as act.sub', async () => {
    const interactive = await exchangeClient({
      name: 'Support console',
      redirect_uris: ['https://app.example/cb'],
      grant_types: ['authorization_code', GRANT],
    });
    const agent = await createUser(server);
    const actorToken = (await codeFlowTokens(server, interactive, agent, 'search.read')).token.body;
    const subject = await userToken();
    const answer = await exchange(interactive, {
      subject_token: subject.access_token as string,
      actor_token: actorToken.access_token as string,
      actor_token_type: ACCESS,
      audience: search.audience,
    });
    expect(answer.status).toBe(200);
    expect((await introspect(server, search, answer.body.access_token as string)).body).toMatchObject({
      sub: user.userId,
      act: { sub: agent.userId, client_id: interactive.clientId },
    });
  });

  it('caps expires_in at the subject token remaining life', async () => {
    const shortLived = await createClient(server, {
      scopes: ['search.read'],
      access_token_ttl_seconds: 60,
    });
    const subject = (await codeFlowTokens(server, shortLived, user, 'search.read')).token.body;
    const answer = await exchange(service, { subject_token: subject.access_token as string });
    expect(answer.status).toBe(200);
    expect(answer.body.expires_in).toBeGreaterThan(50);
    expect(answer.body.expires_in).toBeLessThanOrEqual(60);
    const seen = await introspect(server, search, answer.body.access_token as string);
    const subjectSeen = await introspect(server, search, subject.access_token as string);
    expect(seen.body.exp).toBeLessThanOrEqual(subjectSeen.body.exp as number);
  });

  it('records the token: the client revokes it (RFC 7009) and it is inactive at once', async () => {
    const subject = await userToken();
    const answer = await exchange(service, {
      subject_token: subject.access_token as string,
      audience: search.audience,
    });
    const token = answer.body.access_token as string;
    expect((await introspect(server, search, token)).body.active).toBe(true);
    const revoked = await postForm(
      `${server.url}/revoke`,
      { token },
      { authorization: basic(service.clientId, service.secret!) },
    );
    expect(revoked.status).toBe(200);
    expect((await introspect(server, search, token)).body).toEqual({ active: false });
    // The subject token is untouched.
    expect((await introspect(server, search, subject.access_token as string)).body.active).toBe(true);
  });

  it('is revoked with the user (admin) and with the subject refresh family', async () => {
    const other = await createUser(server);
    const subject = (await codeFlowTokens(server, web, other, 'openid offline_access search.read')).token
      .body;
    const answer = await exchange(service, {
      subject_token: subject.access_token as string,
      audience: search.audience,
    });
    const token = answer.body.access_token as string;
    expect((await introspect(server, search, token)).body.active).toBe(true);
    await admin(server, 'POST', '/revocations', { user_id: other.userId });
    expect((await introspect(server, search, token)).body).toEqual({ active: false });

    const subject2 = await userToken('openid offline_access search.read');
    const token2 = (
      await exchange(service, { subject_token: subject2.access_token as string, audience: search.audience })
    ).body.access_token as string;
    const refresh = { grant_type: 'refresh_token', refresh_token: subject2.refresh_token as string };
    const auth = { authorization: basic(web.clientId, web.secret!) };
    expect((await postForm(`${server.url}/token`, refresh, auth)).status).toBe(200);
    expect((await postForm(`${server.url}/token`, refresh, auth)).status).toBe(400); // reuse
    expect((await introspect(server, search, token2)).body).toEqual({ active: false });
  });

  describe('errors (RFC 8693 §2.2.2, RFC 6749 §5.2)', () => {
    it('refuses a client without the grant type, and a public client, with unauthorized_client', async () => {
      const subject = await userToken();
      const plain = await createClient(server, { scopes: ['search.read'] });
      expect(errorOf(await exchange(plain, { subject_token: subject.access_token as string }))).toEqual([
        400,
        'unauthorized_client',
      ]);
      const publicClient = await admin(server, 'POST', '/clients', {
        name: 'SPA',
        client_type: 'public',
        redirect_uris: ['https://app.example/cb'],
        grant_types: ['authorization_code', GRANT],
      });
      expect([publicClient.status, publicClient.body.error]).toEqual([400, 'invalid_client_metadata']);
    });

    it('answers invalid_request for missing or unsupported token types', async () => {
      const subject = (await userToken()).access_token as string;
      const cases: Record<string, string>[] = [
        { subject_token: '' },
        { subject_token: subject, subject_token_type: '' },
        { subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
        { subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' },
        { subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' },
        { subject_token: subject, actor_token: subject },
        { subject_token: subject, actor_token_type: ACCESS },
        {
          subject_token: subject,
          actor_token: subject,
          actor_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        },
        { subject_token: subject, requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
        { subject_token: subject, requested_token_type: 'urn:ietf:params:oauth:token-type:jwt' },
      ];
      for (const form of cases) {
        const answer = await exchange(service, form);
        expect([JSON.stringify(form), ...errorOf(answer)]).toEqual([
          JSON.stringify(form),
          400,
          'invalid_request',
        ]);
      }
      const ok = await exchange(service, { subject_token: subject, requested_token_type: ACCESS });
      expect(ok.status).toBe(200);
    });

    it('answers invalid_request for an unknown, revoked, expired or refresh subject token, and a foreign actor token', async () => {
      const subject = await userToken('openid offline_access search.read');
      const revoked = await userToken('search.read');
      await postForm(
        `${server.url}/revoke`,
        { token: revoked.access_token as string },
        { authorization: basic(web.clientId, web.secret!) },
      );
      const expired = await userToken('search.read');
      await server.pool.query(
        `UPDATE tokens SET expires_at = now() - interval '1 second' WHERE grant_id =
           (SELECT grant_id FROM tokens WHERE client_id = $1 ORDER BY issued_at DESC LIMIT 1)`,
        [web.clientId],
      );
      const foreignActor = await postForm(
        `${server.url}/token`,
        { grant_type: 'client_credentials', scope: 'search.read' },
        { authorization: basic(web.clientId, web.secret!) },
      );
      const cases: Record<string, string>[] = [
        { subject_token: 'not-a-token' },
        { subject_token: revoked.access_token as string },
        { subject_token: expired.access_token as string },
        { subject_token: subject.refresh_token as string },
        {
          subject_token: subject.access_token as string,
          actor_token: 'not-a-token',
          actor_token_type: ACCESS,
        },
        {
          subject_token: subject.access_token as string,
          actor_token: foreignActor.body.access_token as string,
          actor_token_type: ACCESS,
        },
      ];
      for (const [i, form] of cases.entries()) {
        expect([i, ...errorOf(await exchange(service, form))]).toEqual([i, 400, 'invalid_request']);
      }
      expect((await exchange(service, { subject_token: subject.access_token as string })).status).toBe(200);
    });

    it('answers invalid_scope for a scope beyond the subject token or the client', async () => {
      const subject = (await userToken('openid search.read')).access_token as string;
      expect(errorOf(await exchange(service, { subject_token: subject, scope: 'orders.read' }))).toEqual([
        400,
        'invalid_scope',
      ]);
      const wide = (await userToken('openid search.read billing.read')).access_token as string;
      expect(errorOf(await exchange(service, { subject_token: wide, scope: 'billing.read' }))).toEqual([
        400,
        'invalid_scope',
      ]);
      const billingOnly = (await userToken('billing.read')).access_token as string;
      expect(errorOf(await exchange(service, { subject_token: billingOnly }))).toEqual([
        400,
        'invalid_scope',
      ]);
    });

    it('answers invalid_target for an unknown target or one the client may not target', async () => {
      const subject = (await userToken()).access_token as string;
      for (const target of ['https://unknown.example', billing.audience]) {
        for (const name of ['audience', 'resource']) {
          expect(errorOf(await exchange(service, { subject_token: subject, [name]: target }))).toEqual([
            400,
            'invalid_target',
          ]);
        }
      }
      const billingOnly = (await userToken('billing.read search.read')).access_token as string;
      // search.read is allowed, but the subject token is only for billing and search: search remains.
      expect((await exchange(service, { subject_token: billingOnly })).status).toBe(200);
    });

    it('answers invalid_client for wrong client credentials', async () => {
      const subject = (await userToken()).access_token as string;
      const answer = await exchange(
        { clientId: service.clientId, secret: 'wrong' },
        { subject_token: subject },
      );
      expect(errorOf(answer)).toEqual([401, 'invalid_client']);
    });
  });

  it('is in discovery', async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Json;
    expect(metadata.grant_types_supported).toContain(GRANT);
  });
});
