import { randomBytes } from 'node:crypto';
import { startWebServer, type WebServer } from './support/start-web-server';
import { inputValue, WebClient } from './support/web-client';

describe('account page: authorized apps and revocation', () => {
  let server: WebServer;
  let userId: string;
  let otherUserId: string;
  const password = 'account page password';
  const second = {
    clientId: 'notes-app',
    name: 'Notes & Co',
    redirectUris: ['http://127.0.0.1:9/n'],
    scopes: ['openid'],
  };
  beforeAll(async () => {
    server = await startWebServer({
      clients: [
        {
          clientId: 'photo-app',
          name: 'Photo <Book>',
          redirectUris: ['http://127.0.0.1:9/cb'],
          scopes: ['openid', 'email'],
        },
        second,
      ],
    });
    userId = await server.createUser('heidi', password);
    otherUserId = await server.createUser('ivan', password);
  });
  afterAll(async () => {
    await server.stop();
  });

  async function grant(user: string, clientId: string, scopes: string[]): Promise<string> {
    const { rows } = await server.pool.query<{ grant_id: string }>(
      'INSERT INTO grants (client_id, user_id, scopes) VALUES ($1, $2, $3) RETURNING grant_id',
      [clientId, user, scopes],
    );
    const grantId = rows[0]!.grant_id;
    for (const kind of ['access_token', 'refresh_token']) {
      await server.pool.query(
        `INSERT INTO tokens (token_hash, kind, format, grant_id, client_id, user_id, scopes)
         VALUES ($1, $2, 'opaque', $3, $4, $5, $6)`,
        [randomBytes(32), kind, grantId, clientId, user, scopes],
      );
    }
    return grantId;
  }

  async function signIn(username: string): Promise<WebClient> {
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
  }

  it('sends a signed-out visitor to the login page', async () => {
    const response = await new WebClient(server.url).get('/account');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?return_to=%2Faccount');
  });

  it('lists each authorized app once with its scopes in words, escaped, and with the page headers', async () => {
    await grant(userId, 'photo-app', ['openid']);
    await grant(userId, 'photo-app', ['email']);
    await server.pool.query(
      "INSERT INTO consents (user_id, client_id, scopes) VALUES ($1, 'notes-app', '{openid}')",
      [userId],
    );
    await grant(otherUserId, 'photo-app', ['openid']);
    const browser = await signIn('heidi');
    const response = await browser.get('/account');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    expect(html).toContain('<h3>Photo &lt;Book&gt;</h3>');
    expect(html).toContain('<h3>Notes &amp; Co</h3>');
    expect(html.match(/<h3>/g)).toHaveLength(2);
    expect(html).toContain('<li data-scope="email">See your email address</li>');
    expect(html).toContain('<input type="hidden" name="client_id" value="photo-app" />');
  });

  it('revoking an app revokes all its grants and tokens at once, forgets consent, and audits it', async () => {
    const grants = [await grant(userId, 'photo-app', ['openid'])];
    await server.pool.query(
      "INSERT INTO consents (user_id, client_id, scopes) VALUES ($1, 'photo-app', '{openid,email}') ON CONFLICT DO NOTHING",
      [userId],
    );
    const othersGrant = await grant(otherUserId, 'photo-app', ['openid']);
    const browser = await signIn('heidi');
    const html = await (await browser.get('/account')).text();
    const response = await browser.post('/account/revoke', {
      csrf_token: inputValue(html, 'csrf_token'),
      client_id: 'photo-app',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/account?revoked=1');

    const { rows: live } = await server.pool.query(
      `SELECT count(*)::int AS n FROM tokens t JOIN grants g USING (grant_id)
        WHERE g.user_id = $1 AND g.client_id = 'photo-app' AND (t.revoked_at IS NULL OR g.revoked_at IS NULL)`,
      [userId],
    );
    expect(live[0].n).toBe(0);
    const { rows: revoked } = await server.pool.query(
      'SELECT revoked_reason FROM grants WHERE grant_id = ANY($1::uuid[])',
      [grants],
    );
    expect(revoked).toEqual([{ revoked_reason: 'revoked by user on the account page' }]);
    const { rowCount } = await server.pool.query(
      "SELECT 1 FROM consents WHERE user_id = $1 AND client_id = 'photo-app'",
      [userId],
    );
    expect(rowCount).toBe(0);
    const { rows: others } = await server.pool.query(
      'SELECT g.revoked_at, t.revoked_at AS token_revoked FROM grants g JOIN tokens t USING (grant_id) WHERE grant_id = $1',
      [othersGrant],
    );
    expect(others).toEqual([
      { revoked_at: null, token_revoked: null },
      { revoked_at: null, token_revoked: null },
    ]);
    expect(server.audit()).toContainEqual(
      expect.objectContaining({ event: 'grant.revoked', userId, clientId: 'photo-app', grantsRevoked: 3 }),
    );
    const after = await (await browser.get('/account?revoked=1')).text();
    expect(after).toContain('Access revoked.');
    expect(after).not.toContain('Photo &lt;Book&gt;');
    expect(after).toContain('Notes &amp; Co');
  });

  it('a revoke POST without a valid CSRF token changes nothing', async () => {
    const grantId = await grant(userId, 'notes-app', ['openid']);
    const browser = await signIn('heidi');
    const response = await browser.post('/account/revoke', { csrf_token: 'forged', client_id: 'notes-app' });
    expect(response.status).toBe(403);
    const { rows } = await server.pool.query('SELECT revoked_at FROM grants WHERE grant_id = $1', [grantId]);
    expect(rows).toEqual([{ revoked_at: null }]);
  });

  it("a user cannot revoke another user's grant by naming the client", async () => {
    const grantId = await grant(otherUserId, 'notes-app', ['openid']);
    const browser = await signIn('heidi');
    const html = await (await browser.get('/account')).text();
    await browser.post('/account/revoke', {
      csrf_token: inputValue(html, 'csrf_token'),
      client_id: 'notes-app',
    });
    const { rows } = await server.pool.query('SELECT revoked_at FROM grants WHERE grant_id = $1', [grantId]);
    expect(rows).toEqual([{ revoked_at: null }]);
  });
});
