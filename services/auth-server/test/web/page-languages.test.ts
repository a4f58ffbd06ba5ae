import { startWebServer, type WebServer } from './support/start-web-server';
import { authorizePath, inputValue, WebClient } from './support/web-client';

/** Issue 25: the pages in English or German, from ui_locales (OIDC Core §3.1.2.1) or Accept-Language. */
describe('page languages over HTTP', () => {
  let server: WebServer;
  const password = 'correct horse battery staple';
  beforeAll(async () => {
    server = await startWebServer();
    await server.createUser('lena', password);
  });
  afterAll(async () => {
    await server.stop();
  });

  const request = (extra: Record<string, string> = {}) =>
    authorizePath({
      client_id: server.clients[0]!.clientId,
      redirect_uri: server.clients[0]!.redirectUris[0]!,
      response_type: 'code',
      scope: 'openid email',
      state: 'st-lang',
      prompt: 'consent',
      ...extra,
    });

  it('answers in German for Accept-Language de, in English otherwise', async () => {
    const german = await (
      await new WebClient(server.url).get(request(), { 'accept-language': 'de-DE,de;q=0.9' })
    ).text();
    expect(german).toContain('<html lang="de">');
    expect(german).toContain('<h1>Anmelden</h1>');
    expect(german).toContain('<label for="username">Benutzername</label>');
    const english = await (
      await new WebClient(server.url).get(request(), { 'accept-language': 'fr, en;q=0.5' })
    ).text();
    expect(english).toContain('<html lang="en">');
    expect(english).toContain('<h1>Sign in</h1>');
  });

  it('follows ui_locales through the login error and the consent page', async () => {
    const browser = new WebClient(server.url);
    const path = request({ ui_locales: 'de en' });
    const login = await (await browser.get(path, { 'accept-language': 'en' })).text();
    expect(login).toContain('<h1>Anmelden</h1>');
    const failed = await browser.post(
      '/login',
      {
        csrf_token: inputValue(login, 'csrf_token'),
        return_to: inputValue(login, 'return_to'),
        username: 'lena',
        password: 'wrong',
      },
      { 'accept-language': 'en' },
    );
    expect(failed.status).toBe(400);
    const again = await failed.text();
    expect(again).toContain('<html lang="de">');
    expect(again).toContain('Benutzername oder Passwort ist falsch.');
    const signedIn = await browser.post(
      '/login',
      {
        csrf_token: inputValue(again, 'csrf_token'),
        return_to: inputValue(again, 'return_to'),
        username: 'lena',
        password,
      },
      { 'accept-language': 'en' },
    );
    expect(signedIn.status).toBe(303);
    const consent = await (
      await browser.get(signedIn.headers.get('location')!, { 'accept-language': 'en' })
    ).text();
    expect(consent).toContain('<html lang="de">');
    expect(consent).toContain('<li data-scope="email">Ihre E-Mail-Adresse sehen</li>');
    expect(consent).toContain('>Erlauben</button>');
  });

  it('words the error page in the page language', async () => {
    const page = await new WebClient(server.url).get('/authorize?client_id=nobody&response_type=code', {
      'accept-language': 'de',
    });
    expect(page.status).toBe(400);
    const text = await page.text();
    expect(text).toContain('<html lang="de">');
    expect(text).toContain('Fehlercode: <code>');
  });
});
