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
 * Grace for refresh reuse is 0 here so that two concurrent rotations are a reuse, not a client retry.
 */
describe('two instances of each service side by side', () => {
  let stack: Stack;
  let browser: Browser;
  let callback: CallbackServer;
  let bearer: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    stack = await startStack({
      authInstances: 2,
      searchInstances: 2,
      cacheSeconds: 30,
      webRedirectUri: `${callback.origin}/cb`,
      extraAuthEnv: { REFRESH_REUSE_GRACE_SECONDS: '0' },
    });
    browser = await launchChromium();
    bearer = `Bearer ${await clientCredentialsToken(stack.auth[0]!.url, stack.seed.webClient)}`;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await callback?.stop();
  });

  it('two auth-servers rotating the same refresh token at once: never two winners, and the family does not survive the reuse', async () => {
    const context = await browser.newContext();
    const [a, b] = [stack.auth[0]!, stack.auth[1]!];
    const client = stack.seed.webClient;
    const rounds = 5;
    let oneWinner = 0;
    for (let round = 0; round < rounds; round++) {
      const tokens = await completeCodeFlow({
        context,
        authUrl: a.url,
        callback,
        client,
        user: stack.seed.user,
        scope: 'openid offline_access search.read',
        state: `refresh-${round}`,
      });
      expect(typeof tokens.refresh_token).toBe('string');
      const rotate = (url: string) =>
        call(`${url}/token`, {
          method: 'POST',
          headers: {
            authorization: basic(client.clientId, client.clientSecret),
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: tokens.refresh_token!,
          }).toString(),
        });
      const replies = await Promise.all([rotate(a.url), rotate(b.url)]);
      const winners = replies.filter((r) => r.status === 200);
      // Never two winners: the atomic rotation lets one request through, the other is a reuse.
      expect(winners.length).toBeLessThanOrEqual(1);
      for (const loser of replies.filter((r) => r.status !== 200)) {
        expect(loser.status).toBe(400);
        expect((loser.json as { error: string }).error).toBe('invalid_grant');
      }
      // RFC 9700 §4.14.2: the reuse revokes the family, so no branch of it stays usable.
      for (const winner of winners) {
        const again = await rotate(b.url);
        expect(again.status).toBe(400);
        const next = (winner.json as { refresh_token: string }).refresh_token;
        const reply = await call(`${a.url}/token`, {
          method: 'POST',
          headers: {
            authorization: basic(client.clientId, client.clientSecret),
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: next }).toString(),
        });
        expect(reply.status).toBe(400);
      }
      oneWinner += winners.length;
    }
    console.log(
      `refresh rotation races: ${rounds} rounds across 2 instances, never two winners ` +
        `(${oneWinner} rounds with one 200, ${rounds - oneWinner} where the reuse revoked the family first)`,
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
