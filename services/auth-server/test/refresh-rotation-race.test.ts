import { Pool, type PoolClient } from 'pg';
import { purgeExpired } from '../src/domain/tokens/purge-expired';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  basic,
  codeFlowTokens,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  postForm,
  type Json,
} from './support/oauth-helpers';

/**
 * Exactly one rotation of a refresh token wins, on one instance or two (RFC 9700 §4.14.2). To make the
 * requests truly concurrent (each reads the token unrotated before any rotation commits), a test
 * connection holds the token's row lock while they arrive and releases it once all of them wait on it.
 */
type Client = { clientId: string; secret?: string };

/** A new client, user and resource server, and the refresh token of one code flow (`old`). */
async function setup(server: RunningAuthServer) {
  const client: Client = await createClient(server);
  const user = await createUser(server);
  const rs = await createResourceServer(server, ['search.read']);
  const { token } = await codeFlowTokens(server, client, user, 'search.read offline_access');
  return { client, user, rs, old: token.body.refresh_token as string };
}

/** Two instances on one database with the given reuse grace, and a pool for the test's own queries. */
async function startTwoInstances(graceSeconds: string) {
  const env = { REFRESH_REUSE_GRACE_SECONDS: graceSeconds };
  const a = await startAuthServer(env);
  const b = await startAuthServer(env, { databaseUrl: a.config.DATABASE_URL });
  return { a, b, pool: new Pool({ connectionString: a.config.DATABASE_URL, max: 3 }) };
}
type TwoInstances = Awaited<ReturnType<typeof startTwoInstances>>;

async function stopTwoInstances({ a, b, pool }: TwoInstances) {
  await pool.end();
  await b.stop();
  await a.stop();
}

const ON_ONE_OR_TWO: Array<[string, number]> = [
  ['one instance', 1],
  ['two instances', 2],
];

/** setup() on a, then 6 rotations of its token held to race (raceLocked), spread over `instances`. */
async function raceSix({ a, b, pool }: TwoInstances, instances: number) {
  const family = await setup(a);
  const servers = Array.from({ length: 6 }, (_, i) => (i % instances === 0 ? a : b));
  return { ...family, replies: await raceLocked(pool, servers, family.client, family.old) };
}

const refresh = (server: RunningAuthServer, client: Client, token: string) =>
  postForm(
    `${server.url}/token`,
    { grant_type: 'refresh_token', refresh_token: token },
    { authorization: basic(client.clientId, client.secret!) },
  );

/** Fires one refresh per server entry while the token's row is locked; releases when all wait. */
async function raceLocked(
  pool: Pool,
  servers: RunningAuthServer[],
  client: Client,
  token: string,
): Promise<Array<{ status: number; body: Json }>> {
  const hash = servers[0]!.core.ctx.hasher.hash(token);
  const holder: PoolClient = await pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tokens WHERE token_hash = $1 FOR UPDATE', [hash]);
    const replies = Promise.all(servers.map((server) => refresh(server, client, token)));
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE tokens SET rotated_at%'`,
      );
      if ((rows[0] as { n: number }).n >= servers.length) break;
      if (Date.now() > deadline) throw new Error('the refreshes never all waited on the row');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await holder.query('COMMIT');
    return await replies;
  } finally {
    holder.release();
  }
}

async function refreshRows(pool: Pool, server: RunningAuthServer, token: string) {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n FROM tokens
     WHERE kind = 'refresh_token' AND family_id = (SELECT family_id FROM tokens WHERE token_hash = $1)`,
    [server.core.ctx.hasher.hash(token)],
  );
  return (rows[0] as { n: number }).n;
}

describe('refresh rotation race with the default grace window (idempotent replay)', () => {
  let a: RunningAuthServer;
  let b: RunningAuthServer;
  let pool: Pool;
  beforeAll(async () => {
    ({ a, b, pool } = await startTwoInstances('10'));
  });
  afterAll(() => stopTwoInstances({ a, b, pool }));

  it.each(ON_ONE_OR_TWO)(
    'gives every one of 6 truly concurrent rotations on %s the same single new token set',
    async (_name, instances) => {
      const { client, rs, old, replies } = await raceSix({ a, b, pool }, instances);
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const first = replies[0]!.body;
      for (const reply of replies) expect(reply.body).toEqual(first);
      expect(await refreshRows(pool, a, old)).toBe(2); // the original and exactly one new one
      expect((await introspect(b, rs, first.access_token as string)).body.active).toBe(true);
      // The new refresh token works once; the old one is rotated away and not a live branch.
      const next = await refresh(b, client, first.refresh_token as string);
      expect(next.status).toBe(200);
      expect(next.body.refresh_token).not.toBe(first.refresh_token);
      const { rows } = await pool.query('SELECT rotated_at FROM tokens WHERE token_hash = $1', [
        a.core.ctx.hasher.hash(old),
      ]);
      expect((rows[0] as { rotated_at: Date | null }).rotated_at).toBeInstanceOf(Date);
    },
  );

  it('gives 8 unsynchronised parallel rotations across two instances one token set', async () => {
    const { client, old } = await setup(a);
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => refresh(i % 2 ? b : a, client, old)),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(replies.map((r) => r.body.refresh_token)).size).toBe(1);
    expect(await refreshRows(pool, a, old)).toBe(2);
  });

  it('stores the replay sealed: neither the new tokens nor anything readable without the old token', async () => {
    const { client, old } = await setup(a);
    const rotated = await refresh(a, client, old);
    const { rows } = await pool.query('SELECT sealed FROM refresh_replays WHERE token_hash = $1', [
      a.core.ctx.hasher.hash(old),
    ]);
    const sealed = (rows[0] as { sealed: Buffer }).sealed;
    for (const value of [rotated.body.refresh_token, rotated.body.access_token] as string[]) {
      expect(sealed.includes(Buffer.from(value))).toBe(false);
    }
    expect(sealed.includes(Buffer.from('refresh_token'))).toBe(false);
  });

  it('deletes a sealed replay once its window has passed (hourly purge)', async () => {
    const { client, old } = await setup(a);
    await refresh(a, client, old);
    const hash = a.core.ctx.hasher.hash(old);
    const count = async () =>
      (
        await pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM refresh_replays WHERE token_hash = $1',
          [hash],
        )
      ).rows[0]!.n;
    expect(await count()).toBe(1);
    await pool.query(
      `UPDATE refresh_replays SET expires_at = now() - interval '1 second' WHERE token_hash = $1`,
      [hash],
    );
    await purgeExpired(a.core.ctx);
    expect(await count()).toBe(0);
  });

  it('revokes the family when the rotated token is used after the grace window', async () => {
    const { client, rs, old } = await setup(a);
    const rotated = await refresh(a, client, old);
    const hash = a.core.ctx.hasher.hash(old);
    // Move the rotation 11 s into the past instead of sleeping through the window.
    await pool.query(
      `UPDATE tokens SET rotated_at = rotated_at - interval '11 seconds' WHERE token_hash = $1`,
      [hash],
    );
    await pool.query(
      `UPDATE refresh_replays SET expires_at = now() - interval '1 second' WHERE token_hash = $1`,
      [hash],
    );
    const reuse = await refresh(b, client, old);
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'refresh token already used' });
    expect((await introspect(a, rs, rotated.body.access_token as string)).body).toEqual({ active: false });
    expect((await refresh(a, client, rotated.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });
});

describe('refresh rotation race with grace 0', () => {
  let a: RunningAuthServer;
  let b: RunningAuthServer;
  let pool: Pool;
  beforeAll(async () => {
    ({ a, b, pool } = await startTwoInstances('0'));
  });
  afterAll(() => stopTwoInstances({ a, b, pool }));

  it.each(ON_ONE_OR_TWO)(
    'lets exactly one of 6 truly concurrent rotations on %s win and keeps the winner working',
    async (_name, instances) => {
      const { client, rs, old, replies } = await raceSix({ a, b, pool }, instances);
      const winners = replies.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      for (const loser of replies.filter((r) => r.status !== 200)) {
        expect(loser.status).toBe(400);
        expect(loser.body).toEqual({
          error: 'invalid_grant',
          error_description: 'refresh token already used',
        });
      }
      expect(await refreshRows(pool, a, old)).toBe(2);
      const winner = winners[0]!.body;
      expect((await introspect(b, rs, winner.access_token as string)).body.active).toBe(true);
      expect((await refresh(b, client, winner.refresh_token as string)).status).toBe(200);
    },
  );

  it('revokes the family on any later use of the rotated token', async () => {
    const { client, rs, old } = await setup(a);
    const rotated = await refresh(a, client, old);
    expect(rotated.status).toBe(200);
    const reuse = await refresh(b, client, old);
    expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'refresh token already used' });
    expect((await introspect(a, rs, rotated.body.access_token as string)).body).toEqual({ active: false });
    expect((await refresh(a, client, rotated.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });
});
