import { startWebServer, type WebServer } from './support/start-web-server';
import { inputValue, WebClient } from './support/web-client';

/** CSRF tokens are bound to the browser session, not only to the pre-session cookie (issue 17, item 7). */
describe('CSRF token bound to the session', () => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer();
    await server.createUser('alice', 'alice password 1');
    await server.createUser('mallory', 'mallory password 1');
  });
  afterAll(async () => {
    await server.stop();
  });

  const signIn = async (username: string, password: string) => {
    const browser = new WebClient(server.url);
    const html = await (await browser.get('/login')).text();
    const response = await browser.post('/login', {
      csrf_token: inputValue(html, 'csrf_token'),
      return_to: '/account',
      username,
      password,
    });
    expect(response.status).toBe(303);
    return browser;
  };
  const accountToken = async (browser: WebClient) =>
    inputValue(await (await browser.get('/account')).text(), 'csrf_token');

  it("refuses a token minted in another session even with that session's pre-session cookie planted", async () => {
    const attacker = await signIn('mallory', 'mallory password 1');
    const victim = await signIn('alice', 'alice password 1');
    const token = await accountToken(attacker);
    // Cookie tossing: the attacker's own auth_csrf value set in the victim's browser, next to her session.
    victim.cookies.set('auth_csrf', attacker.cookies.get('auth_csrf')!);
    const forged = await victim.post('/logout', { csrf_token: token });
    expect(forged.status).toBe(403);
    expect((await victim.get('/account')).status).toBe(200); // still signed in
    // The session's own token works.
    expect((await victim.post('/logout', { csrf_token: await accountToken(victim) })).status).toBe(303);
  });

  it('refuses the login-page token once a session exists, and a session token after sign-out', async () => {
    const browser = new WebClient(server.url);
    const loginToken = inputValue(await (await browser.get('/login')).text(), 'csrf_token');
    await browser.post('/login', {
      csrf_token: loginToken,
      return_to: '/account',
      username: 'alice',
      password: 'alice password 1',
    });
    expect((await browser.post('/logout', { csrf_token: loginToken })).status).toBe(403);
    const sessionToken = await accountToken(browser);
    expect((await browser.post('/logout', { csrf_token: sessionToken })).status).toBe(303);
    const again = await browser.post('/login', {
      csrf_token: sessionToken,
      return_to: '/account',
      username: 'alice',
      password: 'alice password 1',
    });
    expect(again.status).toBe(403);
  });
});
