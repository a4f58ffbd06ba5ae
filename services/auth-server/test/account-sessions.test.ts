import nock from 'nock';
import { waitFor } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createUser } from './support/oauth-helpers';
import { registerBackchannelRp, signInThroughClient, silentAuthorize } from './support/logout-helpers';
import { FIREFOX_LINUX, SAFARI_IPHONE, UserAgentClient } from './support/user-agent-client';
import { inputValue, WebClient } from './web/support/web-client';

/**
 * The account page's sessions list and "End this session" over HTTP on real Postgres: each live session
 * of the user with a coarse device description, this one marked; ending another one signs that browser
 * out and tells its RP (back-channel logout, nock as the RP); nobody else's session can be named.
 */
describe('account page: active sessions', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret: string };

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    server = await startAuthServer({ BACKCHANNEL_LOGOUT_RETRY_BASE_MS: '1000' });
    client = await registerBackchannelRp(server);
  });
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    await server.stop();
    nock.enableNetConnect();
  });

  /** The sids in the page's "End this session" forms, in page order. */
  const endableSids = (html: string) =>
    [...html.matchAll(/<input type="hidden" name="sid" value="([^"]+)" \/>/g)].map((m) => m[1]!);

  it('lists the user’s sessions with device, times and this-session marker, and only theirs', async () => {
    const user = await createUser(server);
    const stranger = await createUser(server);
    const laptop = new UserAgentClient(server.url, FIREFOX_LINUX);
    const phone = new UserAgentClient(server.url, SAFARI_IPHONE);
    await signInThroughClient(server, laptop, client, user.username);
    const onPhone = await signInThroughClient(server, phone, client, user.username);
    const theirs = await signInThroughClient(server, new WebClient(server.url), client, stranger.username);

    const page = await laptop.get('/account');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<h2 id="sessions-heading">Where you are signed in</h2>');
    expect(html).toMatch(
      /<h3 class="device">\s*Firefox · Linux\s*<span class="badge">This session<\/span>\s*<\/h3>/,
    );
    expect(html).toMatch(/<h3 class="device">\s*Safari · iOS\s*<\/h3>/);
    expect(html.match(/<h3 class="device">/g)).toHaveLength(2);
    expect(html).toMatch(
      /Signed in <time datetime="[^"]+"\s*>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time\s*>, last seen <time datetime="[^"]+"\s*>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time\s*>\./,
    );
    // Only the other session can be ended from here (this one signs out), named by its public sid.
    expect(endableSids(html)).toEqual([onPhone.claims.sid]);
    expect(html).not.toContain(String(theirs.claims.sid));
    // Only the description is stored, never the User-Agent itself.
    const { rows } = await server.pool.query<{ device: string }>(
      'SELECT device FROM sessions WHERE user_id = $1 ORDER BY device',
      [user.userId],
    );
    expect(rows.map((row) => row.device)).toEqual(['Firefox · Linux', 'Safari · iOS']);
  });

  it('ends another session: that browser is signed out and its RP told; this one stays', async () => {
    const user = await createUser(server);
    const laptop = new UserAgentClient(server.url, FIREFOX_LINUX);
    const phone = new UserAgentClient(server.url, SAFARI_IPHONE);
    await signInThroughClient(server, laptop, client, user.username);
    const onPhone = await signInThroughClient(server, phone, client, user.username);
    const bodies: string[] = [];
    const rp = nock('https://rp.example')
      .post('/backchannel', (body: Record<string, string>) => {
        bodies.push(body.logout_token!);
        return true;
      })
      .reply(204);

    const html = await (await laptop.get('/account')).text();
    const [sid] = endableSids(html);
    expect((await laptop.post('/account/sessions/end', { sid: sid! })).status).toBe(403); // no CSRF token
    expect(await silentAuthorize(phone, client.clientId)).toBe('code');
    const ended = await laptop.post('/account/sessions/end', {
      csrf_token: inputValue(html, 'csrf_token'),
      sid: sid!,
    });
    expect(ended.status).toBe(303);
    expect(ended.headers.get('location')).toBe('/account?ended=1');
    expect(await (await laptop.get('/account?ended=1')).text()).toContain(
      '<p role="status" class="notice">Session ended.</p>',
    );
    expect(await silentAuthorize(phone, client.clientId)).toBe('login_required');
    expect(await silentAuthorize(laptop, client.clientId)).toBe('code');

    await waitFor(async () => rp.isDone(), 8000);
    const token = JSON.parse(Buffer.from(bodies[0]!.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(token).toMatchObject({ sid: onPhone.claims.sid, sub: user.userId });

    // Again: already gone.
    const again = await laptop.post('/account/sessions/end', {
      csrf_token: inputValue(html, 'csrf_token'),
      sid: sid!,
    });
    expect(again.status).toBe(404);
  });

  it('cannot end someone else’s session, nor its own through this form', async () => {
    const user = await createUser(server);
    const stranger = await createUser(server);
    const mine = new WebClient(server.url);
    const theirs = new WebClient(server.url);
    const me = await signInThroughClient(server, mine, client, user.username);
    const them = await signInThroughClient(server, theirs, client, stranger.username);
    const csrf = inputValue(await (await mine.get('/account')).text(), 'csrf_token');

    const other = await mine.post('/account/sessions/end', {
      csrf_token: csrf,
      sid: String(them.claims.sid),
    });
    expect(other.status).toBe(404);
    expect(await silentAuthorize(theirs, client.clientId)).toBe('code');
    const own = await mine.post('/account/sessions/end', { csrf_token: csrf, sid: String(me.claims.sid) });
    expect(own.status).toBe(400);
    expect(await own.text()).toContain('To end this session, sign out.');
    expect(await silentAuthorize(mine, client.clientId)).toBe('code');
  });

  it('records when a session was last used, at most every five minutes', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    const signedIn = await signInThroughClient(server, browser, client, user.username);
    const lastSeen = async () =>
      (
        await server.pool.query<{ last_seen_at: Date; auth_time: Date }>(
          'SELECT last_seen_at, auth_time FROM sessions WHERE sid = $1',
          [signedIn.claims.sid],
        )
      ).rows[0]!;
    const first = await lastSeen();
    expect(first.last_seen_at.getTime()).toBe(first.auth_time.getTime());
    await browser.get('/account');
    expect((await lastSeen()).last_seen_at.getTime()).toBe(first.last_seen_at.getTime()); // within 5 min
    await server.pool.query(
      "UPDATE sessions SET last_seen_at = now() - interval '6 minutes' WHERE sid = $1",
      [signedIn.claims.sid],
    );
    const stale = (await lastSeen()).last_seen_at.getTime();
    await browser.get('/account');
    expect((await lastSeen()).last_seen_at.getTime()).toBeGreaterThan(stale + 5 * 60_000);
  });
});
