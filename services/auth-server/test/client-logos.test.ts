import { createHash } from 'node:crypto';
import { authConfigSchema } from '../src/config';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { admin, createClient, pkce } from './support/oauth-helpers';
import { authorizePath } from './web/support/web-client';

const CALLBACK = 'https://app.example/cb';
const CDN = 'https://logos.example.com';
/** The smallest PNG there is: signature, IHDR 1×1, IDAT, IEND. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 1)]);
const WEBP = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([0x24, 0, 0, 0]),
  Buffer.from('WEBPVP8 '),
  Buffer.alloc(40, 2),
]);
const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>',
);
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(40)]);

/**
 * Client logos on the sign-in and consent pages: a registered logo_uri only from an origin in
 * UI_LOGO_ORIGINS (and then that origin in the page's CSP img-src), or an image uploaded through the
 * admin API (PNG, JPEG or WebP by magic bytes, ≤ 256 kB, never SVG), served from our origin under its
 * content hash; an upload wins over logo_uri.
 */
describe('client logos', () => {
  let server: RunningAuthServer;

  beforeAll(async () => {
    server = await startAuthServer({ UI_LOGO_ORIGINS: `${CDN},https://other-cdn.example` });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function loginPage(clientId: string) {
    const response = await fetch(
      `${server.url}${authorizePath({
        client_id: clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'openid',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      })}`,
    );
    expect(response.status).toBe(200);
    return { csp: response.headers.get('content-security-policy')!, html: await response.text() };
  }

  const upload = (clientId: string, body: Buffer, type = 'image/png', token = server.config.ADMIN_TOKEN) =>
    fetch(`${server.url}/admin/clients/${clientId}/logo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body: new Uint8Array(body),
    });

  it('shows an allowed logo_uri with the client name as alt text, and allows exactly its origin', async () => {
    const { clientId, body } = await createClient(server, {
      name: 'Acme <Photos>',
      logo_uri: `${CDN}/acme/logo.png?v=2`,
    });
    expect(body.logo_uri).toBe(`${CDN}/acme/logo.png?v=2`);
    const { csp, html } = await loginPage(clientId);
    expect(html).toContain(
      `<img class="client-logo" src="${CDN}/acme/logo.png?v=2" alt="Acme &lt;Photos&gt;" width="64" height="64" />`,
    );
    expect(csp).toBe(
      `default-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'; img-src 'self' ${CDN}`,
    );
    expect(csp).not.toContain('other-cdn');
  });

  it('shows no logo_uri from an origin not in UI_LOGO_ORIGINS, and keeps the strict CSP', async () => {
    for (const uri of ['https://evil.example/logo.png', 'https://logos.example.com.evil.example/x.png']) {
      // The admin API refuses such a logo_uri (client-logo-update.test.ts); one stored before its origin
      // left UI_LOGO_ORIGINS is still not shown.
      const { clientId } = await createClient(server);
      await server.pool.query('INSERT INTO client_logos (client_id, logo_uri) VALUES ($1, $2)', [
        clientId,
        uri,
      ]);
      const { csp, html } = await loginPage(clientId);
      expect(html).not.toContain('<img');
      expect(csp).toBe("default-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'");
    }
    for (const uri of [
      'http://logos.example.com/logo.png',
      'javascript:alert(1)',
      'https://u:p@logos.example.com/x',
    ]) {
      const refused = await admin(server, 'POST', '/clients', {
        name: 'Bad logo',
        client_type: 'public',
        redirect_uris: [CALLBACK],
        logo_uri: uri,
      });
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    }
  });

  it('shows a dynamically registered client’s logo_uri from an allowed origin', async () => {
    const dynamic = await startAuthServer({ UI_LOGO_ORIGINS: CDN, DYNAMIC_REGISTRATION_ENABLED: 'true' });
    try {
      const issued = await admin(dynamic, 'POST', '/initial-access-tokens', {});
      const registered = await fetch(`${dynamic.url}/register`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${issued.body.initial_access_token as string}`,
        },
        body: JSON.stringify({
          client_name: 'Registered app',
          redirect_uris: [CALLBACK],
          token_endpoint_auth_method: 'none',
          scope: 'openid',
          logo_uri: `${CDN}/registered.webp`,
        }),
      });
      expect(registered.status).toBe(201);
      const clientId = ((await registered.json()) as { client_id: string }).client_id;
      const page = await fetch(
        `${dynamic.url}${authorizePath({
          client_id: clientId,
          redirect_uri: CALLBACK,
          response_type: 'code',
          scope: 'openid',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual' },
      );
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(`src="${CDN}/registered.webp" alt="Registered app"`);
      expect(page.headers.get('content-security-policy')).toContain(`img-src 'self' ${CDN}`);
    } finally {
      await dynamic.stop();
    }
  });

  it('serves an uploaded logo from our origin by content hash; it wins over logo_uri; DELETE removes it', async () => {
    const { clientId } = await createClient(server, { name: 'Uploader', logo_uri: `${CDN}/u.png` });
    const stored = await upload(clientId, PNG, 'application/octet-stream'); // the bytes decide, not the header
    expect(stored.status).toBe(200);
    const hash = createHash('sha256').update(PNG).digest('hex').slice(0, 32);
    const path = `/client-logos/${clientId}/${hash}.png`;
    expect(await stored.json()).toEqual({ logo_url: path, media_type: 'image/png' });

    const { csp, html } = await loginPage(clientId);
    expect(html).toContain(`<img class="client-logo" src="${path}" alt="Uploader" width="64" height="64" />`);
    expect(csp).not.toContain('img-src'); // same origin: default-src 'self' covers it
    const image = await fetch(`${server.url}${path}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    // Another hash, extension or client: nothing.
    expect((await fetch(`${server.url}/client-logos/${clientId}/${'0'.repeat(32)}.png`)).status).toBe(404);
    expect((await fetch(`${server.url}/client-logos/${clientId}/${hash}.jpg`)).status).toBe(404);
    expect((await fetch(`${server.url}/client-logos/someone-else/${hash}.png`)).status).toBe(404);

    // A new image, a new URL; JPEG and WebP too.
    for (const [bytes, type, extension] of [
      [JPEG, 'image/jpeg', 'jpg'],
      [WEBP, 'image/webp', 'webp'],
    ] as const) {
      const next = await upload(clientId, bytes, type);
      expect(next.status).toBe(200);
      expect(((await next.json()) as { media_type: string; logo_url: string }).logo_url).toMatch(
        new RegExp(`^/client-logos/${clientId}/[0-9a-f]{32}\\.${extension}$`),
      );
    }
    expect((await fetch(`${server.url}${path}`)).status).toBe(404); // the old URL is gone

    const deleted = await fetch(`${server.url}/admin/clients/${clientId}/logo`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.config.ADMIN_TOKEN}` },
    });
    expect(deleted.status).toBe(204);
    const after = await loginPage(clientId);
    expect(after.html).toContain(`src="${CDN}/u.png"`); // back to the allowed logo_uri
    const again = await fetch(`${server.url}/admin/clients/${clientId}/logo`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.config.ADMIN_TOKEN}` },
    });
    expect(again.status).toBe(404);
  });

  it('refuses SVG, other types, empty and oversized uploads, unknown clients and callers without the admin token', async () => {
    const { clientId } = await createClient(server, { name: 'Refused' });
    for (const [bytes, type] of [
      [SVG, 'image/svg+xml'],
      [SVG, 'image/png'], // an SVG claiming to be a PNG
      [GIF, 'image/gif'],
      [Buffer.from('not an image at all'), 'image/jpeg'],
    ] as const) {
      const refused = await upload(clientId, bytes, type);
      expect(refused.status).toBe(415);
      expect(await refused.json()).toEqual({
        error: 'invalid_request',
        error_description: 'the logo must be a PNG, JPEG or WebP image (SVG is not accepted)',
      });
    }
    const empty = await upload(clientId, Buffer.alloc(0));
    expect(empty.status).toBe(400);
    const big = Buffer.concat([PNG, Buffer.alloc(256 * 1024)]);
    const tooBig = await upload(clientId, big);
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ error: 'invalid_request' });
    const justFits = Buffer.concat([PNG, Buffer.alloc(256 * 1024 - PNG.length)]);
    expect((await upload(clientId, justFits)).status).toBe(200);
    expect((await upload('c_nobody', PNG)).status).toBe(404);
    expect((await upload(clientId, PNG, 'image/png', 'wrong-token')).status).toBe(401);
    const { rows } = await server.pool.query(
      'SELECT octet_length(image) AS size FROM client_logos WHERE client_id = $1',
      [clientId],
    );
    expect(rows[0].size).toBe(256 * 1024);
  });

  it('reads UI_LOGO_ORIGINS as https origins only', () => {
    const base = {
      ISSUER: 'http://127.0.0.1',
      DATABASE_URL: 'postgres://localhost/x',
      TOKEN_SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123',
      ADMIN_TOKEN: 'test-admin-token-0123456789abcdef01234567',
    };
    expect(authConfigSchema.parse(base).UI_LOGO_ORIGINS).toEqual([]);
    expect(
      authConfigSchema.parse({ ...base, UI_LOGO_ORIGINS: ' https://a.example , https://b.example:8443' })
        .UI_LOGO_ORIGINS,
    ).toEqual(['https://a.example', 'https://b.example:8443']);
    for (const bad of [
      'http://a.example',
      'https://a.example/',
      'https://a.example/logos',
      '*',
      'https://*.example',
    ])
      expect(() => authConfigSchema.parse({ ...base, UI_LOGO_ORIGINS: bad })).toThrow(/UI_LOGO_ORIGINS/);
  });
});
