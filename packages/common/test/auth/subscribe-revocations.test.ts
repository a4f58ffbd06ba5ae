import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { subscribeRevocations, type RevocationStreamState, type RevokedTokens } from '../../src';

/**
 * The revocation stream subscriber against a local HTTP server speaking Server-Sent Events (nock
 * cannot hold a response open), with a recording stand-in for the introspection cache.
 */
interface FakeAuth {
  url: string;
  /** Open streams, newest last. */
  streams: ServerResponse[];
  requests: IncomingMessage[];
  /** Answer for the next connections: 200 stream, or a status. */
  status: number;
  close(): Promise<void>;
}

async function startFakeAuth(): Promise<FakeAuth> {
  const fake = { streams: [] as ServerResponse[], requests: [] as IncomingMessage[], status: 200 };
  const server: Server = createServer((req, res) => {
    fake.requests.push(req);
    if (fake.status !== 200) {
      res.writeHead(fake.status, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.write(': subscribed\n\n');
    fake.streams.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

function recorder() {
  const calls: Array<{ drop: RevokedTokens } | 'clear'> = [];
  return {
    calls,
    client: {
      dropRevoked: (revoked: RevokedTokens) => {
        calls.push({ drop: revoked });
        return 0;
      },
      clear: () => void calls.push('clear'),
    },
  };
}

const until = async (check: () => boolean, timeoutMs = 3000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('subscribeRevocations', () => {
  let auth: FakeAuth;
  const subscriptions: Array<{ close(): void }> = [];
  beforeEach(async () => {
    auth = await startFakeAuth();
  });
  afterEach(async () => {
    for (const s of subscriptions.splice(0)) s.close();
    await auth.close();
  });
  const subscribe = (client: ReturnType<typeof recorder>['client'], extra = {}) => {
    const states: RevocationStreamState[] = [];
    const subscription = subscribeRevocations({
      authServerUrl: `${auth.url}/`,
      clientId: 'search store',
      clientSecret: 's3cret:+',
      client,
      minBackoffMs: 20,
      maxBackoffMs: 80,
      onStateChange: (state) => states.push(state),
      ...extra,
    });
    subscriptions.push(subscription);
    return { subscription, states };
  };

  it('connects with form-encoded Basic credentials and clears the cache on connecting', async () => {
    const { calls, client } = recorder();
    const { subscription, states } = subscribe(client);
    await until(() => subscription.connected);
    const request = auth.requests[0]!;
    expect(request.url).toBe('/revocations/stream');
    expect(request.headers.accept).toBe('text/event-stream');
    expect(request.headers.authorization).toBe(
      `Basic ${Buffer.from('search+store:s3cret%3A%2B').toString('base64')}`,
    );
    expect(calls).toEqual(['clear']);
    expect(states).toEqual([{ connected: true }]);
  });

  it('drops what each revocation event names, across chunk boundaries and CRLF lines, ignoring comments', async () => {
    const { calls, client } = recorder();
    const { subscription } = subscribe(client);
    await until(() => subscription.connected);
    const stream = auth.streams[0]!;
    stream.write('id: 1\nevent: revocation\ndata: {"jti":["a","b"],"reason":"admin"}\n\n');
    stream.write(': heartbeat\n\nid: 2\r\nevent: revocation\r\nda');
    stream.write('ta: {"jti":[],"sub":"u1","client_id":"c1"}\r\n\r\n');
    stream.write('event: revocation\ndata: not json\n\nevent: other\ndata: {}\n\n');
    await until(() => subscription.eventsApplied === 2);
    expect(calls).toEqual([
      'clear',
      { drop: { jti: ['a', 'b'], reason: 'admin' } },
      { drop: { jti: [], sub: 'u1', client_id: 'c1' } },
    ]);
  });

  it('clears everything on a resync event', async () => {
    const { calls, client } = recorder();
    const { subscription } = subscribe(client);
    await until(() => subscription.connected);
    auth.streams[0]!.write('id: 7\nevent: resync\ndata: {}\n\n');
    await until(() => subscription.eventsApplied === 1);
    expect(calls).toEqual(['clear', 'clear']);
  });

  it('reconnects after the stream ends, reports the gap and clears the cache again', async () => {
    const { calls, client } = recorder();
    const { subscription, states } = subscribe(client);
    await until(() => subscription.connected);
    auth.streams[0]!.end();
    await until(() => auth.streams.length === 2 && subscription.connected);
    expect(states[1]).toMatchObject({ connected: false, reason: 'stream ended' });
    expect(states[2]).toEqual({ connected: true });
    expect(calls).toEqual(['clear', 'clear']);
  });

  it('backs off while the server refuses, then connects when it accepts', async () => {
    auth.status = 401;
    const { calls, client } = recorder();
    const { subscription, states } = subscribe(client);
    await until(() => auth.requests.length >= 3);
    expect(subscription.connected).toBe(false);
    expect(states[0]).toMatchObject({ connected: false, reason: 'credentials rejected (401)' });
    const waits = states.flatMap((s) => (s.connected ? [] : [s.retryInMs]));
    expect(waits[0]).toBeGreaterThanOrEqual(10);
    expect(waits[0]).toBeLessThanOrEqual(20);
    expect(Math.max(...waits)).toBeLessThanOrEqual(80);
    expect(calls).toEqual([]); // nothing cleared while never connected: answers keep their bound
    auth.status = 200;
    await until(() => subscription.connected);
    expect(calls).toEqual(['clear']);
  });

  it('treats a silent connection as dead after the idle timeout and reconnects', async () => {
    const { client } = recorder();
    const { subscription, states } = subscribe(client, { idleTimeoutMs: 100 });
    await until(() => auth.streams.length === 2, 3000);
    expect(states).toContainEqual(
      expect.objectContaining({ connected: false, reason: 'no data for 100 ms' }),
    );
    subscription.close();
  });

  it('reports an unreachable server and stops for good on close()', async () => {
    await auth.close();
    const { client } = recorder();
    const { subscription, states } = subscribe(client);
    await until(() => states.length >= 1);
    expect(states[0]).toMatchObject({ connected: false });
    expect((states[0] as { reason: string }).reason).toMatch(/^auth server unreachable/);
    subscription.close();
    auth = await startFakeAuth(); // afterEach closes it
  });
});
