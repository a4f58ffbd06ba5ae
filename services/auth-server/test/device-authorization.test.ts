import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  admin,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  postForm,
  type Json,
} from './support/oauth-helpers';
import {
  DEVICE_GRANT,
  deviceRows,
  letIntervalPass,
  pollDevice,
  requestDeviceCode,
  startDevice,
} from './support/device-helpers';

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

/** RFC 8628 over HTTP: the device authorization endpoint, and the device polling /token. */
describe('device authorization grant (RFC 8628)', () => {
  let server: RunningAuthServer;
  let rs: { id: string; secret: string; audience: string };
  beforeAll(async () => {
    server = await startAuthServer();
    rs = await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  /** A client allowed the device grant (and refresh tokens); `overrides` changes its registration. */
  const deviceClient = (overrides: Json = {}) =>
    createClient(server, {
      name: 'Living-room TV',
      redirect_uris: [],
      grant_types: [DEVICE_GRANT, 'refresh_token'],
      ...overrides,
    });
  /** The user's approval on the page, through the page's seam (test/web/device-page.test.ts drives the page). */
  const approve = (userCode: string, userId: string, authTime = new Date()) =>
    server.core.device.approve(userCode.replace('-', ''), { userId, authTime });
  const deny = (userCode: string, userId: string) =>
    server.core.device.deny(userCode.replace('-', ''), { userId, authTime: new Date() });

  describe('POST /device_authorization (§3.1–3.2)', () => {
    it('answers a confidential client (Basic) with both codes, the verification URIs, expires_in and interval', async () => {
      const client = await deviceClient();
      const response = await requestDeviceCode(server, client, { scope: 'openid search.read' });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = response.body;
      expect(body).toEqual({
        device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        user_code: expect.stringMatching(USER_CODE),
        verification_uri: `${server.config.ISSUER}/device`,
        verification_uri_complete: `${server.config.ISSUER}/device?user_code=${String(body.user_code)}`,
        expires_in: 600,
        interval: 5,
      });
      // Stored pending, by keyed hashes only: neither code appears in the row.
      const [row, ...others] = await deviceRows(server, client.clientId);
      expect(others).toEqual([]);
      expect(row).toMatchObject({
        status: 'pending',
        scopes: ['openid', 'search.read'],
        resources: [rs.audience],
        interval_seconds: 5,
        user_id: null,
        grant_id: null,
        last_polled_at: null,
      });
      expect((row!.user_code_hash as Buffer).length).toBe(32);
      expect((row!.device_code_hash as Buffer).length).toBe(32);
      const { rows } = await server.pool.query<{ text: string }>(
        'SELECT d::text AS text FROM device_authorizations d WHERE client_id = $1',
        [client.clientId],
      );
      expect(rows[0]!.text).not.toContain(String(body.device_code));
      expect(rows[0]!.text).not.toContain(String(body.user_code).replace('-', ''));
      const lifetime = (row!.expires_at as Date).getTime() - (row!.created_at as Date).getTime();
      expect(Math.abs(lifetime - 600_000)).toBeLessThan(2000);
    });

    it('answers a public client identified by client_id alone', async () => {
      const client = await deviceClient({ client_type: 'public' });
      expect(client.secret).toBeUndefined();
      const response = await requestDeviceCode(server, client, { scope: 'search.read' });
      expect(response.status).toBe(200);
      expect(response.body.user_code).toEqual(expect.stringMatching(USER_CODE));
    });

    it('refuses wrong client credentials with 401 invalid_client and WWW-Authenticate, storing nothing', async () => {
      const client = await deviceClient();
      const response = await requestDeviceCode(
        server,
        { ...client, secret: 'wrong' },
        { scope: 'search.read' },
      );
      expect(response.status).toBe(401);
      expect(response.body.error).toBe('invalid_client');
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(await deviceRows(server, client.clientId)).toEqual([]);
    });

    it('refuses a client that did not register the device grant type: unauthorized_client, nothing stored', async () => {
      const client = await createClient(server, { grant_types: ['authorization_code', 'refresh_token'] });
      const response = await requestDeviceCode(server, client, { scope: 'search.read' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: 'unauthorized_client',
        error_description: 'the device authorization grant is not allowed for this client',
      });
      expect(await deviceRows(server, client.clientId)).toEqual([]);
    });

    it.each([
      ['no scope', {}, 'invalid_scope'],
      ['a scope the client did not register', { scope: 'search.read search.admin' }, 'invalid_scope'],
      [
        'an unknown resource',
        { scope: 'search.read', resource: 'https://nowhere.example' },
        'invalid_target',
      ],
    ])('refuses %s', async (_label, form: Record<string, string>, error) => {
      const client = await deviceClient();
      const response = await requestDeviceCode(server, client, form);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe(error);
      expect(await deviceRows(server, client.clientId)).toEqual([]);
    });

    it('refuses a repeated parameter (RFC 6749 §3.1)', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const response = await fetch(`${server.url}/device_authorization`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `client_id=${client.clientId}&scope=search.read&scope=openid`,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: 'invalid_request',
        error_description: 'duplicate parameter: scope',
      });
    });

    it('is in the discovery metadata with the grant type (RFC 8628 §4)', async () => {
      const response = await fetch(`${server.url}/.well-known/openid-configuration`);
      const metadata = (await response.json()) as Json;
      expect(metadata.device_authorization_endpoint).toBe(`${server.config.ISSUER}/device_authorization`);
      expect(metadata.grant_types_supported).toContain(DEVICE_GRANT);
    });

    it('lets the admin API register the grant type, and shows it on the client', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const shown = await admin(server, 'GET', `/clients/${client.clientId}`);
      expect(shown.status).toBe(200);
      expect(shown.body.grant_types).toEqual([DEVICE_GRANT, 'refresh_token']);
    });
  });

  describe('polling /token (§3.4–3.5)', () => {
    it('answers authorization_pending until the user decides, then issues tokens as the code flow does', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const user = await createUser(server);
      const device = await startDevice(server, client, 'openid profile offline_access search.read');
      const pending = await pollDevice(server, client, device.device_code);
      expect(pending.status).toBe(400);
      expect(pending.headers.get('cache-control')).toBe('no-store');
      expect(pending.body).toEqual({
        error: 'authorization_pending',
        error_description: 'the user has not yet approved the authorization',
      });
      expect((await deviceRows(server, client.clientId))[0]!.last_polled_at).toBeInstanceOf(Date);

      const authTime = new Date(Date.now() - 60_000);
      expect(await approve(device.user_code, user.userId, authTime)).toBe(true);
      await letIntervalPass(server, client.clientId);
      const token = await pollDevice(server, client, device.device_code);
      expect(token.status).toBe(200);
      expect(token.body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 7200,
        refresh_token: expect.any(String),
        id_token: expect.any(String),
        scope: 'openid profile offline_access search.read',
      });
      const claims = JSON.parse(
        Buffer.from(String(token.body.id_token).split('.')[1]!, 'base64url').toString(),
      ) as Json;
      expect(claims).toMatchObject({
        iss: server.config.ISSUER,
        sub: user.userId,
        aud: client.clientId,
        auth_time: Math.floor(authTime.getTime() / 1000),
        name: 'Ada Lovelace',
      });
      expect(claims).not.toHaveProperty('nonce');
      expect((await introspect(server, rs, String(token.body.access_token))).body).toMatchObject({
        active: true,
        sub: user.userId,
        client_id: client.clientId,
        scope: 'search.read',
      });
      const [row] = await deviceRows(server, client.clientId);
      expect(row).toMatchObject({ status: 'consumed', user_id: user.userId });
      // The refresh token works like any other.
      const refreshed = await postForm(`${server.url}/token`, {
        grant_type: 'refresh_token',
        client_id: client.clientId,
        refresh_token: String(token.body.refresh_token),
      });
      expect(refreshed.status).toBe(200);
    });

    it('is single use: a second exchange is invalid_grant and revokes what the first one issued', async () => {
      const client = await deviceClient();
      const user = await createUser(server);
      const device = await startDevice(server, client, 'search.read');
      await approve(device.user_code, user.userId);
      const first = await pollDevice(server, client, device.device_code);
      expect(first.status).toBe(200);
      const second = await pollDevice(server, client, device.device_code);
      expect(second.status).toBe(400);
      expect(second.body).toEqual({ error: 'invalid_grant', error_description: 'device code already used' });
      expect((await introspect(server, rs, String(first.body.access_token))).body).toEqual({ active: false });
    });

    it('answers slow_down to a poll sooner than the interval, and adds 5 s to the interval from then on', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const device = await startDevice(server, client, 'search.read');
      expect((await pollDevice(server, client, device.device_code)).body.error).toBe('authorization_pending');
      const early = await pollDevice(server, client, device.device_code);
      expect(early.status).toBe(400);
      expect(early.body).toEqual({ error: 'slow_down', error_description: 'poll at most every 10 seconds' });
      expect((await deviceRows(server, client.clientId))[0]!.interval_seconds).toBe(10);
      // 6 s later is on time for the old interval but not for the new one.
      await server.pool.query(
        `UPDATE device_authorizations SET last_polled_at = now() - interval '6 seconds' WHERE client_id = $1`,
        [client.clientId],
      );
      const stillEarly = await pollDevice(server, client, device.device_code);
      expect(stillEarly.body.error).toBe('slow_down');
      expect((await deviceRows(server, client.clientId))[0]!.interval_seconds).toBe(15);
      await letIntervalPass(server, client.clientId);
      expect((await pollDevice(server, client, device.device_code)).body.error).toBe('authorization_pending');
      expect((await deviceRows(server, client.clientId))[0]!.interval_seconds).toBe(15);
    });

    it('answers access_denied (400) once the user denied, and keeps answering it', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const user = await createUser(server);
      const device = await startDevice(server, client, 'search.read');
      expect(await deny(device.user_code, user.userId)).toBe(true);
      for (let i = 0; i < 2; i++) {
        const denied = await pollDevice(server, client, device.device_code);
        expect(denied.status).toBe(400);
        expect(denied.body).toEqual({
          error: 'access_denied',
          error_description: 'the user denied the authorization',
        });
      }
      expect((await deviceRows(server, client.clientId))[0]).toMatchObject({
        status: 'denied',
        user_id: user.userId,
      });
      // A denied request can no longer be approved.
      expect(await approve(device.user_code, user.userId)).toBe(false);
    });

    it('answers expired_token once the code expired, even after an approval, and the page no longer finds it', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const user = await createUser(server);
      const pendingOne = await startDevice(server, client, 'search.read');
      const approvedOne = await startDevice(server, client, 'search.read');
      await approve(approvedOne.user_code, user.userId);
      await server.pool.query(
        `UPDATE device_authorizations SET expires_at = now() - interval '1 second' WHERE client_id = $1`,
        [client.clientId],
      );
      for (const device of [pendingOne, approvedOne]) {
        const expired = await pollDevice(server, client, device.device_code);
        expect(expired.status).toBe(400);
        expect(expired.body).toEqual({
          error: 'expired_token',
          error_description: 'the device code has expired',
        });
      }
      expect(await server.core.device.find(pendingOne.user_code.replace('-', ''))).toBeUndefined();
      expect(await approve(pendingOne.user_code, user.userId)).toBe(false);
    });

    it('refuses a device code polled by another client (invalid_grant) without burning it for its own', async () => {
      const owner = await deviceClient({ client_type: 'public' });
      const thief = await deviceClient();
      const user = await createUser(server);
      const device = await startDevice(server, owner, 'search.read');
      await approve(device.user_code, user.userId);
      const stolen = await pollDevice(server, thief, device.device_code);
      expect(stolen.status).toBe(400);
      expect(stolen.body).toEqual({ error: 'invalid_grant', error_description: 'unknown device code' });
      expect((await deviceRows(server, owner.clientId))[0]!.status).toBe('approved');
      expect((await pollDevice(server, owner, device.device_code)).status).toBe(200);
    });

    it('refuses an unknown device code with invalid_grant and a missing one with invalid_request', async () => {
      const client = await deviceClient({ client_type: 'public' });
      expect((await pollDevice(server, client, 'not-a-device-code')).body).toEqual({
        error: 'invalid_grant',
        error_description: 'unknown device code',
      });
      const missing = await postForm(`${server.url}/token`, {
        grant_type: DEVICE_GRANT,
        client_id: client.clientId,
      });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({
        error: 'invalid_request',
        error_description: 'device_code is required',
      });
    });

    it('refuses the poll of a client that did not register the grant type (unauthorized_client)', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const device = await startDevice(server, client, 'search.read');
      const other = await createClient(server, {
        client_type: 'public',
        grant_types: ['authorization_code'],
      });
      const response = await pollDevice(server, other, device.device_code);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('unauthorized_client');
    });

    it('refuses an approval whose grant was revoked before the poll (invalid_grant), issuing nothing', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const user = await createUser(server);
      const device = await startDevice(server, client, 'search.read');
      await approve(device.user_code, user.userId);
      const revoked = await admin(server, 'POST', '/revocations', { user_id: user.userId });
      expect(revoked.body.revoked_grants).toBe(1);
      const response = await pollDevice(server, client, device.device_code);
      expect(response.body).toEqual({
        error: 'invalid_grant',
        error_description: 'authorization grant revoked',
      });
      const { rows } = await server.pool.query('SELECT 1 FROM tokens WHERE client_id = $1', [
        client.clientId,
      ]);
      expect(rows).toEqual([]);
    });

    it('issues tokens to one of three concurrent polls of an approved code; the others are replays', async () => {
      const client = await deviceClient({ client_type: 'public' });
      const user = await createUser(server);
      const device = await startDevice(server, client, 'search.read');
      await approve(device.user_code, user.userId);
      const answers = await Promise.all([1, 2, 3].map(() => pollDevice(server, client, device.device_code)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
      const { rows } = await server.pool.query(
        `SELECT count(*)::int AS n FROM tokens WHERE client_id = $1 AND kind = 'access_token'`,
        [client.clientId],
      );
      expect(rows[0].n).toBe(1);
    });
  });
});
