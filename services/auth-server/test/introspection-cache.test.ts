import { startLocalRedis, testRedisUrl, type LocalRedis } from '@acme/testkit';
import Redis from 'ioredis';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { clientCredentialsToken } from './support/client-credentials-token';
import { startTwoOnLocalRedis, stopTwoOnLocalRedis } from './support/start-two-on-local-redis';
import { basic, createClient, createResourceServer, introspect, postForm } from './support/oauth-helpers';

const issue = clientCredentialsToken;

/**
 * B's answer once a revocation broadcast from A had time to arrive: it reaches B asynchronously (Redis
 * writes it to B's subscriber connection in the same round as A's PUBLISH reply, and the instances and
 * this test share one process, so B may read the test's request first). Asks until B says inactive,
 * for at most 5 s: far inside B's 60 s in-process TTL, so a lost broadcast still fails.
 */
async function answerAfterBroadcast(
  server: RunningAuthServer,
  rs: { id: string; secret: string; audience: string },
  token: string,
): Promise<Record<string, unknown>> {
  const started = Date.now();
  let answer = (await introspect(server, rs, token)).body as Record<string, unknown>;
  while (answer.active !== false && Date.now() - started < 5_000) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    answer = (await introspect(server, rs, token)).body as Record<string, unknown>;
  }
  return answer;
}

describe('introspection cache on Redis shared by two instances', () => {
  let a: RunningAuthServer;
  let b: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let rs: { id: string; secret: string; audience: string };
  beforeAll(async () => {
    // The in-process layer lives a minute here (default 1 s), so its expiry can never hide a lost
    // broadcast, however slow a loaded machine runs the steps below.
    const env = {
      REDIS_URL: testRedisUrl(),
      INTROSPECTION_CACHE_MAX_SECONDS: '120',
      INTROSPECTION_LOCAL_CACHE_MS: '60000',
    };
    a = await startAuthServer(env);
    b = await startAuthServer(env, { databaseUrl: a.config.DATABASE_URL });
    client = await createClient(a, { access_token_ttl_seconds: 90 });
    rs = await createResourceServer(a, ['search.read']);
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
  });

  it('caches an active result in Redis with a TTL that never passes the token expiry', async () => {
    const token = await issue(a, client);
    expect((await introspect(b, rs, token)).body.active).toBe(true);
    const key = `auth:ti:${b.core.ctx.hasher.hash(token).toString('base64url')}`;
    const ttl = await b.redis!.ttl(key);
    expect(ttl).toBeGreaterThan(80);
    expect(ttl).toBeLessThanOrEqual(90);
    expect(JSON.parse((await b.redis!.hget(key, rs.id))!)).toMatchObject({
      active: true,
      scope: 'search.read',
    });
  });

  it('answers from the in-process layer of B while warm, the layer a revocation broadcast must reach', async () => {
    const token = await issue(a, client);
    expect((await introspect(b, rs, token)).body.active).toBe(true);
    const hash = b.core.ctx.hasher.hash(token);
    await b.redis!.del(`auth:ti:${hash.toString('base64url')}`);
    await b.pool.query('DELETE FROM tokens WHERE token_hash = $1', [hash]);
    // Neither Redis nor Postgres knows the token any more: only B's in-process layer can say active.
    expect((await introspect(b, rs, token)).body.active).toBe(true);
  });

  it('answers active:false through instance B right after a revocation went through A, cache warm', async () => {
    for (let i = 0; i < 5; i += 1) {
      const token = await issue(a, client);
      expect((await introspect(b, rs, token)).body.active).toBe(true); // Redis and B's in-process layer warm
      expect((await introspect(a, rs, token)).body.active).toBe(true); // A's in-process layer warm from Redis
      const started = Date.now();
      const revoke = await postForm(
        `${a.url}/revoke`,
        { token },
        { authorization: basic(client.clientId, client.secret!) },
      );
      expect(revoke.status).toBe(200);
      expect(await answerAfterBroadcast(b, rs, token)).toEqual({ active: false });
      // Still inside B's in-process TTL: only the pub/sub broadcast can have dropped B's entry.
      expect(Date.now() - started).toBeLessThan(60_000);
    }
  });

  it('drops cached entries on every instance when an admin revokes a whole client', async () => {
    const tokens = [await issue(a, client), await issue(b, client)];
    for (const token of tokens) expect((await introspect(b, rs, token)).body.active).toBe(true);
    const response = await fetch(`${a.url}/admin/revocations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.config.ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: client.clientId }),
    });
    expect(response.status).toBe(200);
    for (const token of tokens) expect(await answerAfterBroadcast(b, rs, token)).toEqual({ active: false });
  });

  it('reports Redis up in /ready', async () => {
    expect(await (await fetch(`${a.url}/ready`)).json()).toEqual({
      status: 'ready',
      checks: { postgres: 'up', redis: 'up' },
    });
  });
});

describe('introspection while Redis is down', () => {
  let redis: LocalRedis;
  let a: RunningAuthServer;
  let b: RunningAuthServer;
  beforeAll(async () => {
    ({ redis, a, b } = await startTwoOnLocalRedis());
  });
  afterAll(() => stopTwoOnLocalRedis({ redis, a, b }));

  it('answers correctly from Postgres, never a stale active:true, and /ready says degraded', async () => {
    const client = await createClient(a);
    const rs = await createResourceServer(a, ['search.read']);
    const token = await issue(a, client);
    expect((await introspect(a, rs, token)).body.active).toBe(true);
    expect((await introspect(b, rs, token)).body.active).toBe(true);
    await redis.stop();

    const revoke = await postForm(
      `${a.url}/revoke`,
      { token },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(revoke.status).toBe(200);
    expect((await introspect(a, rs, token)).body).toEqual({ active: false });
    expect((await introspect(b, rs, token)).body).toEqual({ active: false });

    const fresh = await issue(b, client);
    expect((await introspect(b, rs, fresh)).body).toMatchObject({ active: true, scope: 'search.read' });
    expect((await introspect(b, rs, 'unknown-token')).body).toEqual({ active: false });
    const wrong = await postForm(
      `${b.url}/token_info`,
      { token: fresh },
      { authorization: basic(rs.id, 'bad') },
    );
    expect(wrong.status).toBe(401);

    const ready = await fetch(`${a.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'degraded', checks: { postgres: 'up', redis: 'down' } });
  });
});

describe('a revocation that could not reach Redis', () => {
  let redis: LocalRedis;
  let a: RunningAuthServer;
  beforeAll(async () => {
    redis = await startLocalRedis();
    a = await startAuthServer({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await a.stop();
    await redis.stop();
  });

  it('stops trusting Redis until the namespace is flushed, so the stale entry is never served', async () => {
    const client = await createClient(a);
    const rs = await createResourceServer(a, ['search.read']);
    const token = await issue(a, client);
    expect((await introspect(a, rs, token)).body.active).toBe(true);
    const key = `auth:ti:${a.core.ctx.hasher.hash(token).toString('base64url')}`;
    a.redis!.disconnect(); // this instance is cut off from Redis; Redis itself keeps the entry
    await postForm(`${a.url}/revoke`, { token }, { authorization: basic(client.clientId, client.secret!) });
    const observer = new Redis(redis.url);
    try {
      expect(JSON.parse((await observer.hget(key, rs.id))!)).toMatchObject({ active: true }); // the stale entry
      expect((await introspect(a, rs, token)).body).toEqual({ active: false });
      await a.redis!.connect();
      expect((await introspect(a, rs, token)).body).toEqual({ active: false }); // flush may still be running
      const stale = async () => (await observer.hget(key, rs.id))?.includes('"active":true') ?? false;
      // The flush runs once the connection is ready again; a loaded machine may take a while.
      const deadline = Date.now() + 10_000;
      while ((await stale()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await stale()).toBe(false); // flushed (and at most re-cached as inactive)
      expect((await introspect(a, rs, token)).body).toEqual({ active: false });
    } finally {
      observer.disconnect();
    }
  });
});

describe('introspection with the cache off (INTROSPECTION_CACHE_MAX_SECONDS=0)', () => {
  it('answers from Postgres only: an entry left in Redis is neither read nor refreshed', async () => {
    const server = await startAuthServer({ REDIS_URL: testRedisUrl(), INTROSPECTION_CACHE_MAX_SECONDS: '0' });
    try {
      const client = await createClient(server);
      const rs = await createResourceServer(server, ['search.read']);
      const token = await issue(server, client);
      const key = `auth:ti:${server.core.ctx.hasher.hash(token).toString('base64url')}`;
      // What an instance with the cache on (or this one, before a restart) may have left behind.
      await server.redis!.hset(key, rs.id, JSON.stringify({ active: true, scope: 'search.read' }));
      await server.pool.query('UPDATE tokens SET revoked_at = now() WHERE token_hash = $1', [
        server.core.ctx.hasher.hash(token),
      ]);
      expect((await introspect(server, rs, token)).body).toEqual({ active: false });
      expect(await server.redis!.hgetall(key)).toEqual({
        [rs.id]: JSON.stringify({ active: true, scope: 'search.read' }),
      });
    } finally {
      await server.stop();
    }
  });
});

describe('introspection without Redis (in-process cache)', () => {
  it('clears the in-process entry at once on revocation', async () => {
    const server = await startAuthServer();
    try {
      const client = await createClient(server);
      const rs = await createResourceServer(server, ['search.read']);
      const token = await issue(server, client);
      expect((await introspect(server, rs, token)).body.active).toBe(true);
      await postForm(
        `${server.url}/revoke`,
        { token },
        { authorization: basic(client.clientId, client.secret!) },
      );
      expect((await introspect(server, rs, token)).body).toEqual({ active: false });
    } finally {
      await server.stop();
    }
  });
});
