import { startStack, type Stack } from '../src/stack';
import { basic, call, clientCredentialsToken, es, eventually, introspect, ndjson, sleep } from '../src/http';
import { CONSISTENT, recountIndex } from '../src/recount';

/**
 * Faults injected into a running production-shaped stack (processes from dist/main.js): Postgres down,
 * Redis down, auth-server down. Each ends with the stack recovering on its own, with no restart.
 */
describe('faults', () => {
  let stack: Stack;
  let serviceAccount: string;

  beforeAll(async () => {
    stack = await startStack({ cacheSeconds: 0 });
    const sa = stack.seed.serviceAccount;
    serviceAccount = basic(sa.clientId, sa.clientSecret);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('Postgres down: both answer 503 in their own envelope, /ready fails, and both recover on their own', async () => {
    const auth = stack.auth[0]!;
    const search = stack.search[0]!;
    const token = await clientCredentialsToken(auth.url, stack.seed.webClient);
    expect((await es(search.url, `Bearer ${token}`, 'PUT', '/faults-pg')).status).toBe(200);

    await stack.postgres.stop();
    try {
      for (const url of [auth.url, search.url]) {
        const ready = await call(`${url}/ready`);
        expect(ready.status).toBe(503);
        expect(ready.json).toMatchObject({ status: 'unavailable', checks: { postgres: 'down' } });
      }
      const tokenReply = await call(`${auth.url}/token`, {
        method: 'POST',
        headers: {
          authorization: basic(stack.seed.webClient.clientId, stack.seed.webClient.clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials&scope=search.read',
      });
      expect(tokenReply.status).toBe(503);
      expect(tokenReply.json).toEqual({
        error: 'temporarily_unavailable',
        error_description: expect.any(String) as string,
      });
      // Basic credentials at search-store go through auth-server, which cannot answer either: 503, never a pass.
      const basicReply = await es(search.url, serviceAccount, 'GET', '/faults-pg/_doc/1');
      expect(basicReply.status).toBe(503);
      // The bearer token is introspected from Redis (still up); the document read needs Postgres: 503.
      const read = await es(search.url, `Bearer ${token}`, 'GET', '/faults-pg/_doc/1');
      expect(read.status).toBe(503);
      expect(read.json).toMatchObject({ status: 503, error: { root_cause: [expect.any(Object)] } });
      expect(read.json).toMatchObject({ error: { type: 'cluster_block_exception' } });
    } finally {
      await stack.postgres.start();
    }
    const recoveredMs = await eventually(async () => {
      const [a, s] = await Promise.all([call(`${auth.url}/ready`), call(`${search.url}/ready`)]);
      return a.status === 200 && s.status === 200;
    }, 20_000);
    console.log(`Postgres back: both services ready again after ${recoveredMs} ms, no restart`);
    const fresh = await clientCredentialsToken(auth.url, stack.seed.webClient);
    const written = await es(search.url, `Bearer ${fresh}`, 'PUT', '/faults-pg/_doc/1', { ok: true });
    expect(written.status).toBe(201);
    expect((await es(search.url, serviceAccount, 'GET', '/faults-pg/_doc/1')).status).toBe(200);
  }, 90_000);

  it('Redis down: introspection stays correct from Postgres (active stays active, revoked stays revoked)', async () => {
    const auth = stack.auth[0]!;
    const rs = stack.seed.resourceServer;
    const live = await clientCredentialsToken(auth.url, stack.seed.webClient);
    const doomed = await clientCredentialsToken(auth.url, stack.seed.webClient);
    expect((await introspect(auth.url, rs, live)).json).toMatchObject({ active: true });
    expect((await introspect(auth.url, rs, doomed)).json).toMatchObject({ active: true });

    await stack.redis.stop();
    try {
      const revoked = await call(`${auth.url}/revoke`, {
        method: 'POST',
        headers: {
          authorization: basic(stack.seed.webClient.clientId, stack.seed.webClient.clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token: doomed }).toString(),
      });
      expect(revoked.status).toBe(200);
      const minted = await clientCredentialsToken(auth.url, stack.seed.webClient);
      for (let i = 0; i < 5; i++) {
        expect((await introspect(auth.url, rs, live)).json).toMatchObject({ active: true });
        expect((await introspect(auth.url, rs, minted)).json).toMatchObject({ active: true });
        expect((await introspect(auth.url, rs, doomed)).json).toEqual({ active: false });
        expect((await introspect(auth.url, rs, 'not-a-token')).json).toEqual({ active: false });
      }
      const ready = await call(`${auth.url}/ready`);
      expect(ready.status).toBe(200); // Redis is an optional dependency: degraded, still ready
    } finally {
      await stack.redis.start();
    }
    // After Redis returns, a revocation made while it was down is still honoured (no stale cache entry).
    await sleep(500);
    expect((await introspect(auth.url, rs, doomed)).json).toEqual({ active: false });
    expect((await introspect(auth.url, rs, live)).json).toMatchObject({ active: true });
  }, 60_000);

  it('auth-server down: search-store answers 503 and lets nothing through, then recovers on its own', async () => {
    const auth = stack.auth[0]!;
    const search = stack.search[0]!;
    const token = await clientCredentialsToken(auth.url, stack.seed.webClient);
    const bearer = `Bearer ${token}`;
    expect((await es(search.url, bearer, 'PUT', '/faults-auth')).status).toBe(200);

    await auth.kill();
    try {
      const attempts: Array<[string, string, string]> = [
        [bearer, 'GET', '/faults-auth/_doc/1'],
        [bearer, 'PUT', '/faults-auth/_doc/x'],
        [serviceAccount, 'GET', '/faults-auth/_search'],
        ['Bearer forged.token.value', 'GET', '/'],
        [basic('demo-web', 'wrong'), 'DELETE', '/faults-auth'],
      ];
      for (const [authorization, method, path] of attempts) {
        const reply = await es(
          search.url,
          authorization,
          method,
          path,
          method === 'PUT' ? { x: 1 } : undefined,
        );
        expect([method, path, reply.status]).toEqual([method, path, 503]);
        expect(reply.json).toMatchObject({ status: 503, error: { root_cause: [expect.any(Object)] } });
      }
    } finally {
      await auth.start();
    }
    // Nothing was written while auth-server was down.
    expect((await es(search.url, bearer, 'GET', '/faults-auth/_doc/x')).status).toBe(404);
    expect((await es(search.url, bearer, 'GET', '/faults-auth')).status).toBe(200);
    expect((await es(search.url, serviceAccount, 'GET', '/faults-auth/_doc/x')).status).toBe(404);
  }, 60_000);

  it('Postgres restarted during a bulk ingest: every item fully stored or reported failed; statistics equal a recount', async () => {
    const auth = stack.auth[0]!;
    const search = stack.search[0]!;
    const bearer = `Bearer ${await clientCredentialsToken(auth.url, stack.seed.webClient)}`;
    const created = await es(search.url, bearer, 'PUT', '/faults-bulk', {
      mappings: { properties: { title: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' } } },
    });
    expect(created.status).toBe(200);
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const acked = new Map<string, number>();
    const failed = new Set<string>();
    const statuses = new Map<number, number>();
    let stop = false;
    const writer = async (w: number) => {
      for (let round = 0; !stop; round++) {
        const docs = Array.from({ length: 40 }, (_, i) => {
          const n = round * 1000 + i;
          return {
            id: `w${w}-r${round}-${i}`,
            n,
            title: `${words[n % 8]} ${words[(n * 7) % 8]} ${w}`,
            tag: words[i % 8],
          };
        });
        const body = ndjson(
          docs.flatMap((d) => [{ index: { _id: d.id } }, { title: d.title, tag: d.tag, n: d.n }]),
        );
        const reply = await es(
          search.url,
          bearer,
          'POST',
          '/faults-bulk/_bulk',
          body,
          'application/x-ndjson',
        );
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status !== 200) {
          for (const d of docs) failed.add(d.id);
          await sleep(50);
          continue;
        }
        const items = (reply.json as { items: Array<{ index: { _id: string; status: number } }> }).items;
        docs.forEach((d, i) => {
          const item = items[i]!.index;
          expect(item._id).toBe(d.id);
          if (item.status === 201 || item.status === 200) acked.set(d.id, d.n);
          else failed.add(d.id);
        });
      }
    };
    const writers = [0, 1, 2].map(writer);
    await sleep(800);
    await stack.postgres.stop();
    await sleep(700);
    await stack.postgres.start();
    await sleep(1200);
    stop = true;
    await Promise.all(writers);
    await eventually(async () => (await call(`${search.url}/ready`)).status === 200, 20_000);

    // Every acknowledged item is stored exactly as sent; every item is either acknowledged or reported failed.
    const stored = await es(search.url, bearer, 'POST', '/faults-bulk/_search', {
      size: 10_000,
      query: { match_all: {} },
      _source: ['n'],
    });
    expect(stored.status).toBe(200);
    const hits = (stored.json as { hits: { hits: Array<{ _id: string; _source: { n: number } }> } }).hits
      .hits;
    const storedIds = new Map(hits.map((h) => [h._id, h._source.n]));
    const lost = [...acked].filter(([id, n]) => storedIds.get(id) !== n);
    expect(lost).toEqual([]);
    const unexplained = [...storedIds.keys()].filter((id) => !acked.has(id) && !failed.has(id));
    expect(unexplained).toEqual([]);
    const storedDespiteFailure = [...failed].filter((id) => storedIds.has(id)).length;
    const count = await es(search.url, bearer, 'GET', '/faults-bulk/_count');
    expect((count.json as { count: number }).count).toBe(storedIds.size);
    // Statistics equal a recount; no orphan postings; nothing half-indexed.
    expect(await recountIndex(stack.databaseUrl, 'faults-bulk', 'title')).toEqual(CONSISTENT);
    console.log(
      `Postgres restarted under bulk ingest: ${acked.size} items acknowledged (0 lost), ${failed.size} reported failed ` +
        `(${storedDespiteFailure} of them stored anyway, fully indexed); bulk statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(statuses.get(500) ?? 0).toBe(0);
  }, 90_000);
});
