import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient, pkce } from '../support/oauth-helpers';
import { authorizePath, inputValue, WebClient } from './support/web-client';

const CDN = 'https://logos.example.com';
const STRICT_CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/**
 * Changing a client's logo_uri after it exists: the admin API's PATCH and the console's edit form set it
 * (from an origin in UI_LOGO_ORIGINS only, as on create) and clear it; a refused one changes nothing.
 */
describe('changing logo_uri after creation', () => {
  let server: RunningAuthServer;
  const adminUser = { username: 'logo-admin', password: 'console password 2026' };
  beforeAll(async () => {
    server = await startAuthServer({ UI_LOGO_ORIGINS: CDN });
    const adminId = (await admin(server, 'POST', '/users', adminUser)).body.user_id as string;
    expect((await admin(server, 'PUT', `/users/${adminId}/roles/admin`)).status).toBe(204);
  });
  afterAll(async () => {
    await server.stop();
  });

  /** The logo the sign-in page of an authorization request shows for the client, and its CSP. */
  async function shownLogo(clientId: string) {
    const page = await fetch(
      `${server.url}${authorizePath({
        client_id: clientId,
        redirect_uri: 'https://app.example/cb',
        response_type: 'code',
        scope: 'openid',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      })}`,
    );
    expect(page.status).toBe(200);
    const src = /<img class="client-logo" src="([^"]*)"/.exec(await page.text())?.[1];
    return { src, csp: page.headers.get('content-security-policy') };
  }

  it('sets, refuses and clears logo_uri through PATCH /admin/clients/:id', async () => {
    const { clientId } = await createClient(server, { name: 'Later logo' });
    expect(await shownLogo(clientId)).toEqual({ src: undefined, csp: STRICT_CSP });

    const set = await admin(server, 'PATCH', `/clients/${clientId}`, { logo_uri: `${CDN}/later.png` });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ client_id: clientId, name: 'Later logo', logo_uri: `${CDN}/later.png` });
    expect(await shownLogo(clientId)).toEqual({
      src: `${CDN}/later.png`,
      csp: `${STRICT_CSP}; img-src 'self' ${CDN}`,
    });

    // An origin the pages would never show, or no https URL at all: refused, and nothing changes (the
    // other fields of the same PATCH neither).
    for (const uri of [
      'https://evil.example/logo.png',
      'https://logos.example.com.evil.example/x.png',
      'http://logos.example.com/logo.png',
      'https://u:p@logos.example.com/x.png',
      42,
    ]) {
      const refused = await admin(server, 'PATCH', `/clients/${clientId}`, {
        name: 'Renamed',
        logo_uri: uri,
      });
      expect({ uri, status: refused.status, error: refused.body.error }).toEqual({
        uri,
        status: 400,
        error: 'invalid_client_metadata',
      });
    }
    expect((await admin(server, 'GET', `/clients/${clientId}`)).body.name).toBe('Later logo');
    expect((await shownLogo(clientId)).src).toBe(`${CDN}/later.png`);

    // A PATCH without logo_uri leaves it; null clears it.
    expect((await admin(server, 'PATCH', `/clients/${clientId}`, { name: 'Renamed' })).status).toBe(200);
    expect((await shownLogo(clientId)).src).toBe(`${CDN}/later.png`);
    const cleared = await admin(server, 'PATCH', `/clients/${clientId}`, { logo_uri: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.logo_uri).toBeNull();
    expect(await shownLogo(clientId)).toEqual({ src: undefined, csp: STRICT_CSP });

    // The audit event names the field.
    const { body } = await admin(server, 'GET', '/audit-events?limit=20');
    const updates = (body.events as { action: string; target_id: string; details: { fields: string[] } }[])
      .filter((event) => event.action === 'client.update' && event.target_id === clientId)
      .map((event) => event.details.fields);
    expect(updates).toContainEqual(['logo_uri']);
  });

  it('refuses on create a logo_uri from an origin outside UI_LOGO_ORIGINS, as on update', async () => {
    const refused = await admin(server, 'POST', '/clients', {
      name: 'Elsewhere',
      client_type: 'public',
      redirect_uris: ['https://app.example/cb'],
      logo_uri: 'https://evil.example/logo.png',
    });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
  });

  it('edits logo_uri in the console’s client form', async () => {
    const { clientId } = await createClient(server, { name: 'Console logo', logo_uri: `${CDN}/first.png` });
    const browser = new WebClient(server.url);
    const login = await browser.get('/admin/console/login');
    const signedIn = await browser.post('/admin/console/login', {
      csrf_token: inputValue(await login.text(), 'csrf_token'),
      ...adminUser,
    });
    expect(signedIn.status).toBe(303);
    const path = `/admin/console/clients/${encodeURIComponent(clientId)}`;
    const edit = await (await browser.get(path)).text();
    expect(inputValue(edit, 'logo_uri')).toBe(`${CDN}/first.png`);
    expect(edit).toContain('<label for="logo_uri">Logo URL</label>');
    const form = (logoUri: string) => ({
      csrf_token: inputValue(edit, 'csrf_token'),
      name: 'Console logo',
      redirect_uris: 'https://app.example/cb',
      grant_types: 'authorization_code',
      scopes: 'openid',
      token_format: 'opaque',
      jwt_alg: 'HS256',
      logo_uri: logoUri,
    });

    const refused = await browser.post(path, form('https://evil.example/logo.png'));
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toMatch(
      /role="alert"[^>]*>The client was not saved: The logo must come from an origin the operator allows \(UI_LOGO_ORIGINS\)\./,
    );
    expect(inputValue(page, 'logo_uri')).toBe('https://evil.example/logo.png'); // shown as typed
    expect((await shownLogo(clientId)).src).toBe(`${CDN}/first.png`);

    expect((await browser.post(path, form(`${CDN}/second.png`))).status).toBe(303);
    expect((await shownLogo(clientId)).src).toBe(`${CDN}/second.png`);
    expect(inputValue(await (await browser.get(path)).text(), 'logo_uri')).toBe(`${CDN}/second.png`);

    expect((await browser.post(path, form(''))).status).toBe(303);
    expect((await shownLogo(clientId)).src).toBeUndefined();
  });
});
