import { startLocalRedis, testRedisUrl, type LocalRedis } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { startTwoOnLocalRedis, stopTwoOnLocalRedis } from './support/start-two-on-local-redis';
import {
  admin,
  basic,
  codeFlowTokens,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  postForm,
} from './support/oauth-helpers';
import { openSse, type SseEvent, type SseReader } from './support/sse-reader';

type Rs = { id: string; secret: string; audience: string };
type Client = { clientId: string; secret?: string };

const issue = async (server: RunningAuthServer, client: Client) =>
  (
    await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      { authorization: basic(client.clientId, client.secret!) },
    )
  ).body.access_token as string;

const jtiOf = async (server: RunningAuthServer, rs: Rs, token: string) =>
  (await introspect(server, rs, token)).body.jti as string;

/** Other suites share the Redis channel: match events by content, never by count. */
const naming = (jti: string) => (event: SseEvent) =>
  event.event === 'revocation' && (JSON.parse(event.data) as { jti: string[] }).jti.includes(jti);

const subscribe = async (server: RunningAuthServer, rs: Rs) => {
  const stream = await openSse(`${server.url}/revocations/stream`, basic(rs.id, rs.secret));
  await stream.waitForComment((c) => c.startsWith('subscribed'));
  return stream;
};

describe('GET /revocations/stream across two instances on one Postgres and Redis', () => {
  let a: RunningAuthServer;
  let b: RunningAuthServer;
  let client: Client;
  let rs: Rs;
  const streams: SseReader[] = [];
  beforeAll(async () => {
    const env = { REDIS_URL: testRedisUrl(), REVOCATION_STREAM_HEARTBEAT_SECONDS: '1' };
    a = await startAuthServer(env);
    b = await startAuthServer(env, { databaseUrl: a.config.DATABASE_URL });
    client = await createClient(a);
    rs = await createResourceServer(a, ['search.read']);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await a.stop();
    await b.stop();
  });

  it('refuses a subscriber without valid resource-server credentials like /token_info does', async () => {
    for (const authorization of [
      undefined,
      basic(rs.id, 'wrong-secret'),
      basic(client.clientId, client.secret!),
    ]) {
      const response = await fetch(`${a.url}/revocations/stream`, {
        headers: authorization ? { authorization } : {},
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="token_info", charset="UTF-8"');
      expect(await response.json()).toEqual({
        error: 'invalid_client',
        error_description: 'resource server authentication failed',
      });
    }
  });

  it('streams text/event-stream with a heartbeat comment', async () => {
    const stream = await subscribe(a, rs);
    streams.push(stream);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-store');
    await stream.waitForComment((c) => c === 'heartbeat', 2500);
  });

  it('tells a subscriber on instance B, at once, the jti /token_info showed for a token revoked on A', async () => {
    const stream = await subscribe(b, rs);
    streams.push(stream);
    const token = await issue(a, client);
    const jti = await jtiOf(a, rs, token);
    const started = Date.now();
    const revoked = await postForm(
      `${a.url}/revoke`,
      { token },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(revoked.status).toBe(200);
    const event = await stream.waitFor(naming(jti));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(JSON.parse(event.data)).toEqual({ jti: [jti], reason: 'client_revocation' });
    expect(Number(event.id)).toBeGreaterThan(0);
    expect(event.data).not.toContain(token);
  });

  it('numbers events with increasing ids', async () => {
    const stream = await subscribe(a, rs);
    streams.push(stream);
    const jtis: string[] = [];
    for (let i = 0; i < 3; i++) {
      const token = await issue(a, client);
      jtis.push(await jtiOf(a, rs, token));
      await postForm(`${b.url}/revoke`, { token }, { authorization: basic(client.clientId, client.secret!) });
    }
    const events = await Promise.all(jtis.map((jti) => stream.waitFor(naming(jti))));
    const ids = events.map((e) => Number(e.id));
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });

  it('announces a user-wide admin revocation with sub and every access token of the user', async () => {
    const stream = await subscribe(b, rs);
    streams.push(stream);
    const user = await createUser(a);
    const one = await codeFlowTokens(a, client, user, 'search.read offline_access');
    const two = await codeFlowTokens(a, client, user, 'search.read');
    const jtis = [
      await jtiOf(a, rs, one.token.body.access_token as string),
      await jtiOf(a, rs, two.token.body.access_token as string),
    ];
    expect((await admin(a, 'POST', '/revocations', { user_id: user.userId })).status).toBe(200);
    const event = await stream.waitFor(naming(jtis[0]!));
    expect(JSON.parse(event.data)).toEqual({
      jti: expect.arrayContaining(jtis),
      sub: user.userId,
      reason: 'admin',
    });
    expect((JSON.parse(event.data) as { jti: string[] }).jti).toHaveLength(2); // no refresh tokens
  });

  it('announces the access tokens of a family revoked by refresh-token reuse', async () => {
    const stream = await subscribe(b, rs);
    streams.push(stream);
    const user = await createUser(a);
    const { token } = await codeFlowTokens(a, client, user, 'search.read offline_access');
    const old = token.body.refresh_token as string;
    const refresh = (refreshToken: string) =>
      postForm(
        `${a.url}/token`,
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        { authorization: basic(client.clientId, client.secret!) },
      );
    const rotated = await refresh(old);
    const jti = await jtiOf(a, rs, rotated.body.access_token as string);
    // Past the grace window: the reuse revokes the family.
    await a.pool.query(
      `UPDATE tokens SET rotated_at = rotated_at - interval '1 hour' WHERE token_hash = $1`,
      [a.core.ctx.hasher.hash(old)],
    );
    await a.pool.query('DELETE FROM refresh_replays WHERE token_hash = $1', [a.core.ctx.hasher.hash(old)]);
    expect((await refresh(old)).status).toBe(400);
    const event = await stream.waitFor(naming(jti));
    expect(JSON.parse(event.data)).toMatchObject({ reason: 'refresh_reuse' });
  });

  it('announces the tokens of a replayed authorization code', async () => {
    const stream = await subscribe(a, rs);
    streams.push(stream);
    const user = await createUser(a);
    const { token, code, verifier } = await codeFlowTokens(a, client, user, 'search.read');
    const jti = await jtiOf(a, rs, token.body.access_token as string);
    const replay = await postForm(
      `${b.url}/token`,
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'https://app.example/cb',
      },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(replay.status).toBe(400);
    const event = await stream.waitFor(naming(jti));
    expect(JSON.parse(event.data)).toEqual({ jti: [jti], reason: 'code_replay' });
  });

  it('announces a client deletion with client_id', async () => {
    const stream = await subscribe(a, rs);
    streams.push(stream);
    const doomed = await createClient(a);
    const token = await issue(a, doomed);
    const jti = await jtiOf(a, rs, token);
    expect((await admin(b, 'DELETE', `/clients/${doomed.clientId}`)).status).toBe(204);
    const event = await stream.waitFor(naming(jti));
    expect(JSON.parse(event.data)).toEqual({
      jti: [jti],
      client_id: doomed.clientId,
      reason: 'client_deleted',
    });
    expect((await introspect(a, rs, token)).body).toEqual({ active: false });
  });

  it('stops delivering to a subscriber that hung up', async () => {
    const before = a.core.ctx.revocations.subscribers;
    const stream = await subscribe(a, rs);
    expect(a.core.ctx.revocations.subscribers).toBe(before + 1);
    stream.close();
    const deadline = Date.now() + 2000;
    while (a.core.ctx.revocations.subscribers !== before && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(a.core.ctx.revocations.subscribers).toBe(before);
  });
});

describe('GET /revocations/stream without Redis (one instance)', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("still streams this instance's own revocations", async () => {
    const client = await createClient(server);
    const rs = await createResourceServer(server, ['search.read']);
    const stream = await subscribe(server, rs);
    const token = await issue(server, client);
    const jti = await jtiOf(server, rs, token);
    await postForm(
      `${server.url}/revoke`,
      { token },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(JSON.parse((await stream.waitFor(naming(jti))).data)).toEqual({
      jti: [jti],
      reason: 'client_revocation',
    });
    stream.close();
  });
});

describe('GET /revocations/stream on shutdown', () => {
  it('ends every open stream when the feed closes, so subscribers reconnect elsewhere', async () => {
    const server = await startAuthServer();
    const rs = await createResourceServer(server, ['search.read']);
    const response = await fetch(`${server.url}/revocations/stream`, {
      headers: { authorization: basic(rs.id, rs.secret) },
    });
    expect(response.status).toBe(200);
    const body = response.text(); // resolves only when the server ends the stream
    await new Promise((resolve) => setTimeout(resolve, 50));
    server.core.ctx.revocations.close();
    expect(await body).toMatch(/^retry: 2000\n: subscribed /);
    expect(server.core.ctx.revocations.subscribers).toBe(0);
    await server.stop();
  });
});

describe('GET /revocations/stream while Redis is down', () => {
  let redis: LocalRedis;
  let a: RunningAuthServer;
  let b: RunningAuthServer;
  beforeAll(async () => {
    ({ redis, a, b } = await startTwoOnLocalRedis());
  });
  afterAll(() => stopTwoOnLocalRedis({ redis, a, b }));

  it("streams an instance's own revocations, misses the other's (the documented gap) and tells its subscribers to resync when Redis is back", async () => {
    const client = await createClient(a);
    const rs = await createResourceServer(a, ['search.read']);
    const onA = await subscribe(a, rs);
    const onB = await subscribe(b, rs);
    const token = await issue(a, client);
    const jti = await jtiOf(a, rs, token);
    await redis.stop();
    await postForm(`${a.url}/revoke`, { token }, { authorization: basic(client.clientId, client.secret!) });
    expect(JSON.parse((await onA.waitFor(naming(jti))).data)).toEqual({
      jti: [jti],
      reason: 'client_revocation',
    });
    await expect(onB.waitFor(naming(jti), 300)).rejects.toThrow('no matching event');
    redis = await startLocalRedis({ port: Number(new URL(redis.url).port) });
    await onB.waitFor((event) => event.event === 'resync', 8000);
    onA.close();
    onB.close();
  }, 20_000);
});

describe('GET /revocations/stream limits', () => {
  let server: RunningAuthServer;
  const opened: SseReader[] = [];
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    for (const stream of opened) stream.close();
    await server.stop();
  });

  const probe = async (rs: Rs) => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}/revocations/stream`, {
      headers: { authorization: basic(rs.id, rs.secret) },
      signal: controller.signal,
    });
    const body = response.status === 200 ? undefined : await response.json();
    controller.abort();
    return { status: response.status, headers: response.headers, body };
  };
  const settle = async (count: number) => {
    const deadline = Date.now() + 3000;
    while (server.core.ctx.revocations.subscribers !== count && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.core.ctx.revocations.subscribers).toBe(count);
  };

  it('refuses a 33rd open stream of one resource server on one instance with 429, and frees slots on hang-up', async () => {
    const rs = await createResourceServer(server, ['search.read']);
    const open = await Promise.all(Array.from({ length: 32 }, () => subscribe(server, rs)));
    opened.push(...open);
    const refused = await probe(rs);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.body).toEqual({
      error: 'too_many_requests',
      error_description: 'too many open revocation streams for this resource server',
    });
    const other = await createResourceServer(server, ['search.read']);
    expect((await probe(other)).status).toBe(200); // the limit is per resource server
    open.pop()!.close();
    await settle(31);
    expect((await probe(rs)).status).toBe(200);
    for (const stream of open) stream.close();
    await settle(0);
  });
});
