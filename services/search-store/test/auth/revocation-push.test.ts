import { startAuthServer, type RunningAuthServer } from '../../../auth-server/test/support/start-auth-server';
import { searchConfigSchema } from '../../src/config';
import { clientCredentialsToken, registerSearchStore } from '../support/auth-server-calls';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';

/**
 * search-store subscribed to a real auth-server's revocation stream (in process, as main.ts wires it):
 * with a 60 s introspection cache a revoked token is refused at once; with REVOCATION_STREAM=off the
 * cached answer stands (the bound is all there is).
 */
describe('search-store and the revocation stream of a real auth-server', () => {
  let auth: RunningAuthServer;
  let pushed: RunningSearchStore;
  let unpushed: RunningSearchStore;
  let client: { client_id: string; client_secret: string };

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const token = () => clientCredentialsToken(auth, client, undefined);
  const revoke = (accessToken: string) =>
    fetch(`${auth.url}/revoke`, {
      method: 'POST',
      headers: {
        authorization: basic(client.client_id, client.client_secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: accessToken }).toString(),
    });
  const search = (store: RunningSearchStore, accessToken: string) =>
    fetch(`${store.url}/_cat/indices`, { headers: { authorization: `Bearer ${accessToken}` } });
  const gauge = async (store: RunningSearchStore) => {
    const text = await (await fetch(`${store.url}/metrics`)).text();
    return text.split('\n').find((line) => line.startsWith('revocation_stream_connected'));
  };

  beforeAll(async () => {
    auth = await startAuthServer();
    const registered = await registerSearchStore(auth, 'reader');
    client = registered.client;
    const env = { ...registered.env, INTROSPECTION_CACHE_MAX_SECONDS: '60' };
    pushed = await startSearchStore(env, { auth: 'real-with-push' });
    unpushed = await startSearchStore({ ...env, REVOCATION_STREAM: 'off' }, { auth: 'real-with-push' });
  });
  let authStopped = false;
  afterAll(async () => {
    await pushed?.stop();
    await unpushed?.stop();
    if (!authStopped) await auth?.stop();
  });

  it('refuses a revoked token at once despite a 60 s cache when subscribed, and not when the stream is off', async () => {
    const deadline = Date.now() + 5000;
    while ((await gauge(pushed)) !== 'revocation_stream_connected{service="search-store"} 1') {
      if (Date.now() > deadline) throw new Error('never subscribed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await gauge(unpushed)).toBeUndefined();
    const accessToken = await token();
    expect((await search(pushed, accessToken)).status).toBe(200);
    expect((await search(unpushed, accessToken)).status).toBe(200);
    expect((await revoke(accessToken)).status).toBe(200);
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 2000) {
      status = (await search(pushed, accessToken)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    // Without the push the cached answer stands until its bound: the control that the cache was warm.
    expect((await search(unpushed, accessToken)).status).toBe(200);
  });

  it('stays ready while the stream is down and shows it on the gauge', async () => {
    auth.core.ctx.revocations.close(); // end the stream, as auth-server's shutdown does
    await auth.stop();
    authStopped = true;
    const deadline = Date.now() + 5000;
    while ((await gauge(pushed)) !== 'revocation_stream_connected{service="search-store"} 0') {
      if (Date.now() > deadline) throw new Error('gauge never showed the disconnect');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await fetch(`${pushed.url}/ready`)).status).toBe(200);
  });
});

describe('REVOCATION_STREAM', () => {
  const base = {
    DATABASE_URL: 'postgres://localhost/x',
    AUTH_SERVER_URL: 'http://auth.example',
    INTROSPECTION_CLIENT_ID: 'search-store',
    INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
  };
  it('defaults to on, accepts off and refuses anything else by name', () => {
    expect(searchConfigSchema.parse(base).REVOCATION_STREAM).toBe('on');
    expect(searchConfigSchema.parse({ ...base, REVOCATION_STREAM: 'off' }).REVOCATION_STREAM).toBe('off');
    const bad = searchConfigSchema.safeParse({ ...base, REVOCATION_STREAM: 'maybe' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['REVOCATION_STREAM']);
  });
});
