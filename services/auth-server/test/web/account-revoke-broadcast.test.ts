import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { testRedisUrl } from '@acme/testkit';
import { REVOCATION_CHANNEL } from '../../src/storage/introspection-cache.store';
import { startWebServer, type WebServer } from './support/start-web-server';
import { inputValue, WebClient } from './support/web-client';

describe('account page revocation with Redis: one statement, one broadcast', () => {
  let server: WebServer;
  let subscriber: Redis;
  const messages: string[] = [];
  beforeAll(async () => {
    server = await startWebServer({
      redis: true,
      clients: [
        { clientId: 'cast-app', name: 'Cast', redirectUris: ['http://127.0.0.1:9/cb'], scopes: ['openid'] },
      ],
    });
    subscriber = new Redis(testRedisUrl());
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(REVOCATION_CHANNEL);
  });
  afterAll(async () => {
    await subscriber.quit();
    await server.stop();
  });

  it("revokes all of the user's grants for the app and publishes their token hashes in one message", async () => {
    const userId = await server.createUser('judy', 'broadcast password');
    const hashes: Buffer[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { rows } = await server.pool.query<{ grant_id: string }>(
        "INSERT INTO grants (client_id, user_id, scopes) VALUES ('cast-app', $1, '{openid}') RETURNING grant_id",
        [userId],
      );
      const hash = randomBytes(32);
      hashes.push(hash);
      await server.pool.query(
        `INSERT INTO tokens (token_hash, kind, format, grant_id, client_id, user_id, scopes)
         VALUES ($1, 'access_token', 'opaque', $2, 'cast-app', $3, '{openid}')`,
        [hash, rows[0]!.grant_id, userId],
      );
    }
    const browser = new WebClient(server.url);
    const login = await (await browser.get('/login')).text();
    await browser.post('/login', {
      csrf_token: inputValue(login, 'csrf_token'),
      return_to: '/account',
      username: 'judy',
      password: 'broadcast password',
    });
    const page = await (await browser.get('/account')).text();
    const response = await browser.post('/account/revoke', {
      csrf_token: inputValue(page, 'csrf_token'),
      client_id: 'cast-app',
    });
    expect(response.status).toBe(303);
    const keys = hashes.map((h) => h.toString('base64url'));
    const ours = () => messages.filter((m) => keys.some((k) => m.includes(k)));
    // The message is published before the response; give the subscriber connection time to deliver it.
    for (let i = 0; i < 50 && ours().length === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect(ours()).toHaveLength(1);
    expect(ours()[0]!.split(',').sort()).toEqual([...keys].sort());
    expect(server.audit()).toContainEqual(
      expect.objectContaining({ event: 'grant.revoked', userId, clientId: 'cast-app', grantsRevoked: 3 }),
    );
  });
});
