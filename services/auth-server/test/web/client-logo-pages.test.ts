import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { createClient, createUser, pkce } from '../support/oauth-helpers';
import { DEVICE_GRANT, startDevice } from '../support/device-helpers';
import { signInAtLogin } from './support/totp-helpers';
import { authorizePath, inputValue, WebClient } from './support/web-client';

const CDN = 'https://logos.example.com';
const LOGO = `${CDN}/brand/logo.png?v=3`;
const STRICT_CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";
const IMG = `<img class="client-logo" src="${CDN}/brand/logo.png?v=3" alt="Brand &lt;App&gt;" width="64" height="64" />`;

/**
 * The client's logo on every page that names the client, not only the first render of sign-in and consent:
 * the login page rendered again after a failed sign-in, the device flow's consent and result pages, and
 * the sign-out confirmation; each with exactly the logo's origin added to the CSP img-src.
 */
describe('client logo on every page that names the client', () => {
  let server: RunningAuthServer;
  let client: { clientId: string };
  let user: { userId: string; username: string };
  beforeAll(async () => {
    server = await startAuthServer({ UI_LOGO_ORIGINS: CDN });
    client = await createClient(server, {
      name: 'Brand <App>',
      logo_uri: LOGO,
      grant_types: ['authorization_code', DEVICE_GRANT],
    });
    user = await createUser(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  const expectLogo = async (response: Response) => {
    expect(response.headers.get('content-security-policy')).toBe(`${STRICT_CSP}; img-src 'self' ${CDN}`);
    const html = await response.text();
    expect(html).toContain(IMG);
    return html;
  };

  it('shows it on the login page rendered again after an error, with the client name', async () => {
    const browser = new WebClient(server.url);
    const first = await browser.get(
      authorizePath({
        client_id: client.clientId,
        redirect_uri: 'https://app.example/cb',
        response_type: 'code',
        scope: 'openid',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    const page = await expectLogo(first);
    const form = {
      csrf_token: inputValue(page, 'csrf_token'),
      return_to: inputValue(page, 'return_to'),
      username: user.username,
    };
    for (const password of ['wrong password', '']) {
      const again = await browser.post('/login', { ...form, password });
      expect(again.status).toBe(400);
      const html = await expectLogo(again);
      expect(html).toContain('Sign in to continue to <strong>Brand &lt;App&gt;</strong>.');
      expect(html).toContain('role="alert"');
    }
  });

  it('names no application after an error when return_to is not a valid authorization request', async () => {
    const browser = new WebClient(server.url);
    const page = await (await browser.get('/login')).text();
    const forged = `/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code' })}`;
    const again = await browser.post('/login', {
      csrf_token: inputValue(page, 'csrf_token'),
      return_to: forged, // no redirect_uri of the client's, no scope: not a request the first page showed
      username: user.username,
      password: 'wrong password',
    });
    expect(again.status).toBe(400);
    expect(again.headers.get('content-security-policy')).toBe(STRICT_CSP);
    const html = await again.text();
    expect(html).not.toContain('<img');
    expect(html).not.toContain('Brand');
  });

  it('shows it on the device flow’s consent and result pages', async () => {
    const device = await startDevice(server, client, 'openid');
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, 'correct horse battery');
    const entry = await (await browser.get('/device')).text();
    const consent = await browser.post('/device', {
      csrf_token: inputValue(entry, 'csrf_token'),
      user_code: device.user_code,
    });
    expect(consent.status).toBe(200);
    const html = await expectLogo(consent);
    expect(html).toContain('data-user-code');
    const done = await browser.post('/device', {
      csrf_token: inputValue(html, 'csrf_token'),
      user_code: inputValue(html, 'user_code'),
      decision: 'allow',
    });
    expect(done.status).toBe(200);
    expect(await expectLogo(done)).toContain('Brand &lt;App&gt; now has access.');
  });

  it('shows it on the sign-out confirmation that names the client', async () => {
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, 'correct horse battery');
    const confirm = await browser.get(`/session/end?client_id=${encodeURIComponent(client.clientId)}`);
    expect(confirm.status).toBe(200);
    expect(await expectLogo(confirm)).toContain('<strong>Brand &lt;App&gt;</strong> asks to sign you out.');
  });
});
