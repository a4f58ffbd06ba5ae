import { testRedisUrl } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { createClient, createUser } from '../support/oauth-helpers';
import { DEVICE_GRANT, deviceRows, pollDevice, startDevice } from '../support/device-helpers';
import { inputValue, WebClient } from './support/web-client';

const PASSWORD = 'correct horse battery'; // createUser's

/** A browser signed in as `username` (through the login page, as /device sends it there). */
async function signedIn(server: RunningAuthServer, username: string, headers: Record<string, string> = {}) {
  const web = new WebClient(server.url);
  const login = await (await web.get('/device', headers)).text();
  const response = await web.post(
    '/login',
    { csrf_token: inputValue(login, 'csrf_token'), return_to: '/device', username, password: PASSWORD },
    headers,
  );
  expect(response.status).toBe(303);
  return web;
}

/** Submits the code form of /device (a fresh page each time: its CSRF token). */
async function enterCode(
  web: WebClient,
  userCode: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const page = await (await web.get('/device', headers)).text();
  return web.post(
    '/device',
    { csrf_token: inputValue(page, 'csrf_token'), user_code: userCode, ...extra },
    headers,
  );
}

/** The consent page's decision: its own CSRF token and the user code it carries. */
async function decide(web: WebClient, consent: string, decision: 'allow' | 'deny') {
  return web.post('/device', {
    csrf_token: inputValue(consent, 'csrf_token'),
    user_code: inputValue(consent, 'user_code'),
    decision,
  });
}

/** RFC 8628 §3.3: the user-code page over HTTP with the real protocol core. */
describe('/device, the verification_uri page', () => {
  let server: RunningAuthServer;
  let client: { clientId: string };
  let user: { userId: string; username: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server, {
      name: 'Kitchen <TV>',
      client_type: 'public',
      redirect_uris: [],
      grant_types: [DEVICE_GRANT],
    });
    user = await createUser(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('asks a signed-out visitor to sign in, coming back with the code normalized, under the page headers', async () => {
    const response = await new WebClient(server.url).get('/device?user_code=bcdf%20ghjk');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    expect(html).toContain('<h1>Sign in</h1>');
    expect(inputValue(html, 'return_to')).toBe('/device?user_code=BCDF-GHJK');
  });

  it('takes the user from verification_uri_complete through sign-in and consent to tokens at the next poll', async () => {
    const device = await startDevice(server, client, 'openid profile');
    const web = new WebClient(server.url);
    const complete = new URL(String(device.verification_uri_complete));
    const login = await (await web.get(`${complete.pathname}${complete.search}`)).text();
    const signedIn = await web.post('/login', {
      csrf_token: inputValue(login, 'csrf_token'),
      return_to: inputValue(login, 'return_to'),
      username: user.username,
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(`/device?user_code=${device.user_code}`);
    const entry = await (await web.get(signedIn.headers.get('location')!)).text();
    expect(entry).toContain(`Signed in as <strong>${user.username}</strong>`);
    expect(inputValue(entry, 'user_code')).toBe(device.user_code);

    // Typed in lower case without the dash, or with spaces: the same code.
    const typed = device.user_code.toLowerCase().replace('-', ' ');
    const consent = await web.post('/device', {
      csrf_token: inputValue(entry, 'csrf_token'),
      user_code: typed,
    });
    expect(consent.status).toBe(200);
    const consentHtml = await consent.text();
    expect(consentHtml).toContain('Allow Kitchen &lt;TV&gt; to access your account?');
    expect(consentHtml).toContain(
      '<li data-scope="profile">See your profile: name, username and picture</li>',
    );
    expect(consentHtml).toContain(`<strong class="user-code" data-user-code>${device.user_code}</strong>`);
    expect(consentHtml).toContain('action="/device"');
    expect(inputValue(consentHtml, 'user_code')).toBe(device.user_code);
    expect((await pollDevice(server, client, device.device_code)).body.error).toBe('authorization_pending');

    const done = await decide(web, consentHtml, 'allow');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Kitchen &lt;TV&gt; now has access.');
    const [row] = (await deviceRows(server, client.clientId)).slice(-1);
    expect(row).toMatchObject({ status: 'approved', user_id: user.userId });
    await server.pool.query(`UPDATE device_authorizations SET last_polled_at = NULL WHERE client_id = $1`, [
      client.clientId,
    ]);
    const token = await pollDevice(server, client, device.device_code);
    expect(token.status).toBe(200);
    expect(token.body.scope).toBe('openid profile');

    // The device is on the account page like any authorized app.
    expect(await (await web.get('/account')).text()).toContain('<h3>Kitchen &lt;TV&gt;</h3>');
  });

  it('Deny makes the device get access_denied', async () => {
    const device = await startDevice(server, client, 'openid');
    const web = await signedIn(server, user.username);
    const consent = await (await enterCode(web, device.user_code)).text();
    const done = await decide(web, consent, 'deny');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('<h1>Access denied</h1>');
    expect((await pollDevice(server, client, device.device_code)).body.error).toBe('access_denied');
  });

  it('refuses a code that is unknown, used or expired with the same message', async () => {
    const web = await signedIn(server, user.username);
    const used = await startDevice(server, client, 'openid');
    await decide(web, await (await enterCode(web, used.user_code)).text(), 'deny');
    const expired = await startDevice(server, client, 'openid');
    await server.pool.query(
      `UPDATE device_authorizations SET expires_at = now() - interval '1 second' WHERE status = 'pending'`,
    );
    for (const code of ['BCDF-GHJK', used.user_code, expired.user_code]) {
      const response = await enterCode(web, code);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('That code is not valid, or it has expired.');
    }
  });

  it('answers a malformed code without looking it up', async () => {
    const web = await signedIn(server, user.username);
    const response = await enterCode(web, 'ABCD-1234');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Enter the 8-letter code your device shows, like BCDF-GHJK.');
  });

  it('refuses a decision without the CSRF token (403), deciding nothing', async () => {
    const device = await startDevice(server, client, 'openid');
    const web = await signedIn(server, user.username);
    const response = await web.post('/device', { user_code: device.user_code, decision: 'allow' });
    expect(response.status).toBe(403);
    const rows = await deviceRows(server, client.clientId);
    expect(rows.at(-1)!.status).toBe('pending');
  });

  it('sends a signed-out POST back to the page to sign in, deciding nothing', async () => {
    const device = await startDevice(server, client, 'openid');
    const web = new WebClient(server.url);
    const login = await (await web.get('/device')).text();
    const response = await web.post('/device', {
      csrf_token: inputValue(login, 'csrf_token'),
      user_code: device.user_code,
      decision: 'allow',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`/device?user_code=${device.user_code}`);
    expect((await deviceRows(server, client.clientId)).at(-1)!.status).toBe('pending');
  });
});

/** RFC 8628 §5.1: wrong codes back off the user and the address that failed, never anyone else. */
describe.each([
  ['in memory', false],
  ['on Redis', true],
])('/device code entry throttling %s', (_label, redis) => {
  let server: RunningAuthServer;
  let client: { clientId: string };
  const from = (address: string) => ({ 'x-forwarded-for': address });
  beforeAll(async () => {
    server = await startAuthServer({
      TRUST_PROXY: 'true',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '2',
      LOGIN_MAX_FAILURES_PER_IP: '4',
      ...(redis ? { REDIS_URL: testRedisUrl() } : {}),
    });
    client = await createClient(server, {
      client_type: 'public',
      redirect_uris: [],
      grant_types: [DEVICE_GRANT],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('delays the user and the address that guessed, not another user elsewhere or at that address', async () => {
    const [mallory, bob, carol] = [
      await createUser(server),
      await createUser(server),
      await createUser(server),
    ];
    const device = await startDevice(server, client, 'openid');
    const guesser = await signedIn(server, mallory.username, from('203.0.113.5'));
    for (const guess of ['BCDF-GHJK', 'BCDF-GHJL', 'BCDF-GHJM'])
      expect((await enterCode(guesser, guess, {}, from('203.0.113.5'))).status).toBe(400);
    // Past 2 free failures: the right code from the guesser is refused before any lookup, from anywhere.
    const blocked = await enterCode(guesser, device.user_code, {}, from('203.0.113.5'));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const blockedHtml = await blocked.text();
    expect(blockedHtml).toContain('Too many wrong codes.');
    expect(blockedHtml).not.toContain('Allow');
    expect((await enterCode(guesser, device.user_code, {}, from('198.51.100.9'))).status).toBe(429);

    // Another user at the same address (3 failures there, 4 free) is not delayed.
    const neighbour = await signedIn(server, bob.username, from('203.0.113.5'));
    const consent = await enterCode(neighbour, device.user_code, {}, from('203.0.113.5'));
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain('<h1>Allow');
    // Two more failures there put the address past its budget, for every user at it …
    for (const guess of ['BCDF-GHJN', 'BCDF-GHJP'])
      expect((await enterCode(neighbour, guess, {}, from('203.0.113.5'))).status).toBe(400);
    expect((await enterCode(neighbour, device.user_code, {}, from('203.0.113.5'))).status).toBe(429);
    // … and for no one elsewhere.
    const elsewhere = await signedIn(server, carol.username, from('192.0.2.44'));
    expect((await enterCode(elsewhere, device.user_code, {}, from('192.0.2.44'))).status).toBe(200);
  });

  it('counts a decision posted with a wrong code as a guess', async () => {
    const dave = await createUser(server);
    const device = await startDevice(server, client, 'openid');
    const web = await signedIn(server, dave.username, from('192.0.2.77'));
    for (const guess of ['BCDF-GHJK', 'BCDF-GHJL', 'BCDF-GHJM'])
      expect((await enterCode(web, guess, { decision: 'allow' }, from('192.0.2.77'))).status).toBe(400);
    expect((await enterCode(web, device.user_code, { decision: 'allow' }, from('192.0.2.77'))).status).toBe(
      429,
    );
    expect((await deviceRows(server, client.clientId)).at(-1)!.status).toBe('pending');
  });

  it('does not count malformed entries (typos, not guesses)', async () => {
    const erin = await createUser(server);
    const device = await startDevice(server, client, 'openid');
    const web = await signedIn(server, erin.username, from('192.0.2.88'));
    for (const typo of ['BCDF-GHJ', 'ABCD-EFGH', '1234-5678'])
      expect((await enterCode(web, typo, {}, from('192.0.2.88'))).status).toBe(400);
    expect((await enterCode(web, device.user_code, {}, from('192.0.2.88'))).status).toBe(200);
  });
});
