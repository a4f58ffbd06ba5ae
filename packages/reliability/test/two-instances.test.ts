import { Pool } from 'pg';
import type { Browser } from 'playwright-core';
import { startStack, type Stack } from '../src/stack';
import { basic, call, clientCredentialsToken, es, introspect, ndjson } from '../src/http';
import {
  completeCodeFlow,
  launchChromium,
  startCallbackServer,
  type CallbackServer,
} from '../src/browser-code-flow';

/**
 * Two auth-server and two search-store processes on one Postgres and one Redis, as behind a load balancer.
 * Refresh reuse grace is opted into (10 s): concurrent rotations get the winner's response (the grace-0
 * default runs in services/auth-server/test/refresh-rotation-race.test.ts).
 */
describe('two instances of each service side by side', () => {
  let stack: Stack;
  let browser: Browser;
  let callback: CallbackServer;
  let bearer: string;
  let db: Pool;

  beforeAll(async () => {
    callback = await startCallbackServer();
    stack = await startStack({
      authInstances: 2,
      searchInstances: 2,
      cacheSeconds: 30,
      webRedirectUri: `${callback.origin}/cb`,
      extraAuthEnv: { REFRESH_REUSE_GRACE_SECONDS: '10' },
    });
    db = new Pool({ connectionString: stack.databaseUrl, max: 2 });
    browser = await launchChromium();
    bearer = `Bearer ${await clientCredentialsToken(stack.auth[0]!.url, stack.seed.webClient)}`;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await stack?.stop();
    await callback?.stop();
  });

  it('two auth-servers rotating the same refresh token at once: exactly one rotation wins and every caller holds its tokens', async () => {
    const context = await browser.newContext();
    const [a, b] = [stack.auth[0]!, stack.auth[1]!];
    const client = stack.seed.webClient;
    const rotate = (url: string, refreshToken: string) =>
      call(`${url}/token`, {
        method: 'POST',
        headers: {
          authorization: basic(client.clientId, client.clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
      });
    const rounds = 3;
    const parallel = 8;
    for (let round = 0; round < rounds; round++) {
      const since = (await db.query<{ now: Date }>('SELECT now()')).rows[0]!.now;
      const tokens = await completeCodeFlow({
        context,
        authUrl: a.url,
        callback,
        client,
        user: stack.seed.user,
        scope: 'openid offline_access search.read',
        state: `refresh-${round}`,
      });
      const old = tokens.refresh_token!;
      const replies = await Promise.all(
        Array.from({ length: parallel }, (_, i) => rotate(i % 2 ? b.url : a.url, old)),
      );
      // Within the grace window every caller gets the winner's very response (idempotent replay).
      expect(replies.map((r) => r.status)).toEqual(Array(parallel).fill(200));
      const bodies = replies.map((r) => r.json as { refresh_token: string; access_token: string });
      expect(new Set(bodies.map((body) => body.refresh_token)).size).toBe(1);
      expect(new Set(bodies.map((body) => body.access_token)).size).toBe(1);
      const rows = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM tokens WHERE kind = 'refresh_token' AND client_id = $1 AND issued_at >= $2`,
        [client.clientId, since],
      );
      expect(rows.rows[0]!.n).toBe(2); // the original and exactly one new refresh token
      const reply = (await introspect(b.url, stack.seed.resourceServer, bodies[0]!.access_token)).json;
      expect(reply).toMatchObject({ active: true });
      // The new one rotates once more; the old one, used after the grace window, revokes the family.
      const next = await rotate(b.url, bodies[0]!.refresh_token);
      expect(next.status).toBe(200);
      await db.query(
        `UPDATE tokens SET rotated_at = rotated_at - interval '1 hour' WHERE rotated_at IS NOT NULL AND issued_at >= $1`,
        [since],
      );
      await db.query('DELETE FROM refresh_replays');
      const reuse = await rotate(a.url, old);
      expect(reuse.status).toBe(400);
      expect((reuse.json as { error: string }).error).toBe('invalid_grant');
      const after = await rotate(a.url, (next.json as { refresh_token: string }).refresh_token);
      expect(after.status).toBe(400);
    }
    console.log(
      `refresh rotation races: ${rounds} rounds of ${parallel} parallel rotations across 2 instances, ` +
        `one new refresh token each, every caller got it`,
    );
    await context.close();
  }, 60_000);

  it('one auth-server killed under introspection load: the survivor never gives a wrong answer', async () => {
    const [victim, survivor] = [stack.auth[0]!, stack.auth[1]!];
    const rs = stack.seed.resourceServer;
    const active = await Promise.all(
      Array.from({ length: 8 }, () =>
        clientCredentialsToken(victim.url, stack.seed.webClient, 'search.read'),
      ),
    );
    const revoked = await Promise.all(
      Array.from({ length: 8 }, () =>
        clientCredentialsToken(victim.url, stack.seed.webClient, 'search.read'),
      ),
    );
    for (const token of revoked) {
      const reply = await call(`${victim.url}/revoke`, {
        method: 'POST',
        headers: {
          authorization: basic(stack.seed.webClient.clientId, stack.seed.webClient.clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token }).toString(),
      });
      expect(reply.status).toBe(200);
    }
    let served = 0;
    const wrong: string[] = [];
    let stop = false;
    const worker = async (i: number) => {
      while (!stop) {
        const isActive = i % 2 === 0;
        const token = (isActive ? active : revoked)[(served + i) % 8]!;
        const reply = await introspect(survivor.url, rs, token);
        served++;
        const body = reply.json as { active?: boolean; client_id?: string } | undefined;
        if (reply.status !== 200) wrong.push(`status ${reply.status}`);
        else if (isActive && !(body?.active === true && body.client_id === stack.seed.webClient.clientId))
          wrong.push(`active token answered ${reply.text}`);
        else if (!isActive && body?.active !== false) wrong.push(`revoked token answered ${reply.text}`);
        // The victim is hit too until it dies, so the kill lands mid-request.
        void introspect(victim.url, rs, token);
      }
    };
    const workers = Array.from({ length: 6 }, (_, i) => worker(i));
    await new Promise((resolve) => setTimeout(resolve, 700));
    await victim.kill();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    stop = true;
    await Promise.all(workers);
    console.log(
      `auth-server killed under load: survivor served ${served} introspections, ${wrong.length} wrong`,
    );
    expect(wrong).toEqual([]);
    expect(served).toBeGreaterThan(50);
    await victim.start(); // later tests use both again
  }, 60_000);

  it('two search-stores bulk-writing the same index at once: no lost update, no deadlock, versions monotonic', async () => {
    const [s1, s2] = [stack.search[0]!, stack.search[1]!];
    expect((await es(s1.url, bearer, 'PUT', '/concurrent-bulk')).status).toBe(200);
    const ids = Array.from({ length: 40 }, (_, i) => `d${i}`);
    const acks = new Map<string, number[]>(ids.map((id) => [id, []]));
    const failures: string[] = [];
    const writer = async (url: string, writerId: number) => {
      for (let round = 0; round < 6; round++) {
        // Each writer walks the ids in its own order, so both lock rows in opposite orders at once.
        const order = writerId === 1 ? ids : [...ids].reverse();
        const body = ndjson(
          order.flatMap((id) => [{ index: { _index: 'concurrent-bulk', _id: id } }, { writerId, round }]),
        );
        const reply = await es(url, bearer, 'POST', '/_bulk', body, 'application/x-ndjson');
        if (reply.status !== 200) {
          failures.push(`bulk ${reply.status} ${reply.text.slice(0, 200)}`);
          continue;
        }
        const items = (
          reply.json as {
            items: Array<{ index: { _id: string; status: number; _version?: number; error?: unknown } }>;
          }
        ).items;
        for (const { index } of items) {
          if (index.status >= 300)
            failures.push(`item ${index._id} ${index.status} ${JSON.stringify(index.error)}`);
          else acks.get(index._id)!.push(index._version!);
        }
      }
    };
    await Promise.all([writer(s1.url, 1), writer(s2.url, 2), writer(s1.url, 3), writer(s2.url, 4)]);
    expect(failures).toEqual([]);
    let acknowledged = 0;
    for (const id of ids) {
      const versions = acks.get(id)!;
      acknowledged += versions.length;
      // Every acknowledged write got its own version: none overwrote another unseen (no lost update).
      expect(new Set(versions).size).toBe(versions.length);
      const doc = await es(s2.url, bearer, 'GET', `/concurrent-bulk/_doc/${id}`);
      expect((doc.json as { _version: number })._version).toBe(versions.length);
      expect(Math.max(...versions)).toBe(versions.length);
    }
    console.log(`concurrent bulk: ${acknowledged} acknowledged writes through 2 instances, 0 lost, 0 errors`);
  }, 60_000);

  it('two search-stores updating one document with if_seq_no: every acknowledged increment is kept', async () => {
    const [s1, s2] = [stack.search[0]!, stack.search[1]!];
    expect((await es(s1.url, bearer, 'PUT', '/concurrent-cas/_doc/counter', { n: 0 })).status).toBe(201);
    let acknowledged = 0;
    const unexpected: string[] = [];
    const worker = async (url: string) => {
      let lastSeqNo = -1;
      for (let i = 0; i < 8;) {
        const current = await es(url, bearer, 'GET', '/concurrent-cas/_doc/counter');
        const doc = current.json as { _seq_no: number; _primary_term: number; _source: { n: number } };
        if (doc._seq_no < lastSeqNo) unexpected.push(`seq_no went back from ${lastSeqNo} to ${doc._seq_no}`);
        lastSeqNo = doc._seq_no;
        const reply = await es(
          url,
          bearer,
          'PUT',
          `/concurrent-cas/_doc/counter?if_seq_no=${doc._seq_no}&if_primary_term=${doc._primary_term}`,
          { n: doc._source.n + 1 },
        );
        if (reply.status === 200) {
          acknowledged++;
          i++;
        } else if (reply.status === 409) {
          expect(reply.json).toMatchObject({ error: { type: 'version_conflict_engine_exception' } });
        } else unexpected.push(`${reply.status} ${reply.text.slice(0, 200)}`);
      }
    };
    await Promise.all([worker(s1.url), worker(s2.url), worker(s1.url), worker(s2.url)]);
    expect(unexpected).toEqual([]);
    const final = await es(s2.url, bearer, 'GET', '/concurrent-cas/_doc/counter');
    expect(final.json).toMatchObject({ _version: acknowledged + 1, _source: { n: acknowledged } });
    console.log(
      `compare-and-set: ${acknowledged} acknowledged increments through 2 instances, final n=${acknowledged}`,
    );
  }, 60_000);
});
