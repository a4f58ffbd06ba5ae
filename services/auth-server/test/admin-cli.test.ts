import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import argon2 from 'argon2';
import { readPassword, type PasswordSource } from '../src/cli/read-password';
import { runAdminCli } from '../src/cli/run-admin-cli';
import { seedDemo } from '../src/domain/admin/seed-demo';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, introspect, postForm } from './support/oauth-helpers';

describe('admin CLI and demo seed', () => {
  let server: RunningAuthServer;
  let env: Record<string, string>;
  /** `stdin`: what is piped to the CLI (as `echo … | npm run admin -- …`). */
  const run = async (...argv: string[]) => runWithStdin('', ...argv);
  const runWithStdin = async (stdin: string, ...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const input = new PassThrough();
    input.end(stdin);
    const code = await runAdminCli(
      argv,
      env,
      (l) => out.push(l),
      (l) => err.push(l),
      (source: PasswordSource) => readPassword(source, { input, output: new PassThrough() }),
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const storedHash = async (username: string) =>
    (
      await server.pool.query<{ password_hash: string }>(
        'SELECT password_hash FROM users WHERE username = $1',
        [username],
      )
    ).rows[0]!.password_hash;
  beforeAll(async () => {
    server = await startAuthServer();
    env = { AUTH_ADMIN_URL: server.url, ADMIN_TOKEN: server.config.ADMIN_TOKEN };
  });
  afterAll(async () => {
    await server.stop();
  });

  it('creates a client with --json output whose secret works at /token', async () => {
    await run(
      'resource-servers',
      'create',
      '--id',
      'cli-rs',
      '--audience',
      'https://cli.example',
      '--scope',
      'cli.read',
    );
    const result = await run(
      'clients',
      'create',
      '--name',
      'CLI app',
      '--grant-type',
      'client_credentials',
      '--scope',
      'cli.read',
      '--redirect-uri',
      'https://cli.example/cb',
      '--json',
    );
    expect(result.code).toBe(0);
    const client = JSON.parse(result.out) as { client_id: string; client_secret: string; scopes: string[] };
    expect(client.scopes).toEqual(['cli.read']);
    const token = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(client.client_id, client.client_secret) },
    );
    expect(token.status).toBe(200);
    const listed = await run('clients', 'list', '--json');
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ client_id: client.client_id })]);
    expect((await run('clients', 'get', client.client_id)).out).toContain(`client_id: ${client.client_id}`);
    expect((await run('revoke', '--client', client.client_id, '--json')).code).toBe(0);
    expect((await run('clients', 'delete', client.client_id)).code).toBe(0);
  });

  it('reports API errors with exit code 1 and usage errors with 2', async () => {
    const bad = await run('clients', 'create', '--name', 'x', '--redirect-uri', 'http://evil.example/cb');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('invalid_redirect_uri');
    expect((await run('nonsense')).code).toBe(2);
    const noToken = await runAdminCli(
      ['clients', 'list'],
      {},
      () => undefined,
      () => undefined,
    );
    expect(noToken).toBe(2);
  });

  it('creates a user with the password piped on stdin, never on the command line', async () => {
    const argv = ['users', 'create', '--username', 'cli-user', '--claims', '{"name":"C"}', '--json'];
    const result = await runWithStdin('long enough pw\n', ...argv);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ username: 'cli-user', claims: { name: 'C' } });
    expect(await argon2.verify(await storedHash('cli-user'), 'long enough pw')).toBe(true);
    const explicit = await runWithStdin(
      'second pw 12345',
      'users',
      'create',
      '--username',
      'cli-2',
      '--password-stdin',
    );
    expect(explicit.code).toBe(0);
    expect(await argon2.verify(await storedHash('cli-2'), 'second pw 12345')).toBe(true);
  });

  it('reads the password from --password-file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
    try {
      writeFileSync(join(dir, 'pw'), 'from a file 123\n', { mode: 0o600 });
      const result = await run(
        'users',
        'create',
        '--username',
        'cli-file',
        '--password-file',
        join(dir, 'pw'),
      );
      expect(result.code).toBe(0);
      expect(await argon2.verify(await storedHash('cli-file'), 'from a file 123')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --password on the command line (exit 2) and creates nothing', async () => {
    const result = await run('users', 'create', '--username', 'cli-argv', '--password', 'long enough pw');
    expect(result.code).toBe(2);
    expect(result.err).toContain('--password-file');
    const { rowCount } = await server.pool.query("SELECT 1 FROM users WHERE username = 'cli-argv'");
    expect(rowCount).toBe(0);
    expect((await run('users', 'create', '--username', 'cli-empty')).err).toContain('no password given');
  });

  it('seeds the demo data idempotently, and the seeded credentials work', async () => {
    const options = {
      webRedirectUri: 'http://localhost:3000/callback',
      spaRedirectUri: 'http://localhost:3001/',
      webClientSecret: 'demo-web-secret-0123456789abcdef0123456789',
      searchStoreSecret: 'search-store-secret-0123456789abcdef01234',
    };
    const first = await seedDemo(server.core.ctx, options);
    expect(first.created).toEqual([
      'client demo-web',
      'client demo-spa',
      'resource server search-store',
      'user demo',
    ]);
    const second = await seedDemo(server.core.ctx, options);
    expect(second.created).toEqual([]);
    expect(second.user.userId).toBe(first.user.userId);
    const token = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read search.write' },
      {
        authorization: basic('demo-web', options.webClientSecret),
      },
    );
    expect(token.status).toBe(200);
    const view = await introspect(
      server,
      { id: 'search-store', secret: options.searchStoreSecret },
      token.body.access_token as string,
    );
    expect(view.body).toMatchObject({
      active: true,
      scope: 'search.read search.write',
      aud: ['search-store'],
    });
    // The demo web client may use the device grant (the README's RFC 8628 example).
    const device = await postForm(
      `${server.url}/device_authorization`,
      { scope: 'openid profile search.read' },
      { authorization: basic('demo-web', options.webClientSecret) },
    );
    expect(device.status).toBe(200);
  });

  it('registers a public client for the device grant (--grant-type), which may then start the flow', async () => {
    const grant = 'urn:ietf:params:oauth:grant-type:device_code';
    const result = await run(
      'clients',
      'create',
      '--name',
      'CLI on a TV',
      '--type',
      'public',
      '--grant-type',
      grant,
      '--scope',
      'openid',
      '--json',
    );
    expect(result.code).toBe(0);
    const client = JSON.parse(result.out) as { client_id: string; grant_types: string[] };
    expect(client.grant_types).toEqual([grant]);
    const device = await postForm(`${server.url}/device_authorization`, {
      client_id: client.client_id,
      scope: 'openid',
    });
    expect(device.status).toBe(200);
    expect(device.body.user_code).toEqual(expect.any(String));
  });

  it('registers a service allowed token exchange (--grant-type), which may then exchange a token', async () => {
    const grant = 'urn:ietf:params:oauth:grant-type:token-exchange';
    const result = await run(
      'clients',
      'create',
      '--name',
      'Orders service',
      '--grant-type',
      grant,
      '--grant-type',
      'client_credentials',
      '--scope',
      'cli.read',
      '--json',
    );
    expect(result.code).toBe(0);
    const client = JSON.parse(result.out) as {
      client_id: string;
      client_secret: string;
      grant_types: string[];
    };
    expect(client.grant_types).toEqual([grant, 'client_credentials']);
    const auth = { authorization: basic(client.client_id, client.client_secret) };
    const subject = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'cli.read' },
      auth,
    );
    const exchanged = await postForm(
      `${server.url}/token`,
      {
        grant_type: grant,
        subject_token: subject.body.access_token as string,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      },
      auth,
    );
    expect([exchanged.status, exchanged.body.issued_token_type]).toEqual([
      200,
      'urn:ietf:params:oauth:token-type:access_token',
    ]);
  });

  it('registers the logout metadata (--post-logout-redirect-uri, --backchannel-logout-uri, flag)', async () => {
    const result = await run(
      'clients',
      'create',
      '--name',
      'RP',
      '--redirect-uri',
      'https://rp.example/cb',
      '--post-logout-redirect-uri',
      'https://rp.example/bye',
      '--post-logout-redirect-uri',
      'https://rp.example/bye2',
      '--backchannel-logout-uri',
      'https://rp.example/backchannel',
      '--backchannel-logout-session-required',
      '--json',
    );
    expect(result.code).toBe(0);
    const client = JSON.parse(result.out) as Record<string, unknown>;
    expect(client).toMatchObject({
      post_logout_redirect_uris: ['https://rp.example/bye', 'https://rp.example/bye2'],
      backchannel_logout_uri: 'https://rp.example/backchannel',
      backchannel_logout_session_required: true,
    });
    const stored = await server.pool.query(
      'SELECT post_logout_redirect_uris, backchannel_logout_uri, backchannel_logout_session_required FROM clients WHERE client_id = $1',
      [client.client_id],
    );
    expect(stored.rows[0]).toEqual({
      post_logout_redirect_uris: ['https://rp.example/bye', 'https://rp.example/bye2'],
      backchannel_logout_uri: 'https://rp.example/backchannel',
      backchannel_logout_session_required: true,
    });
    const refused = await run(
      'clients',
      'create',
      '--name',
      'RP',
      '--post-logout-redirect-uri',
      'http://rp.example/x',
    );
    expect(refused.code).toBe(1);
  });

  it('registers a private_key_jwt client with --auth-method and --jwks (no secret), whose keys are stored', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1' }] };
    const result = await run(
      'clients',
      'create',
      '--name',
      'Service',
      '--grant-type',
      'client_credentials',
      '--auth-method',
      'private_key_jwt',
      '--jwks',
      JSON.stringify(jwks),
      '--json',
    );
    expect(result.code).toBe(0);
    const client = JSON.parse(result.out) as Record<string, unknown>;
    expect(client).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks });
    expect(client.client_secret).toBeUndefined();
    const stored = await server.pool.query(
      'SELECT token_endpoint_auth_method, jwks, secret_hash FROM clients WHERE client_id = $1',
      [client.client_id],
    );
    expect(stored.rows[0]).toEqual({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks,
      secret_hash: null,
    });
  });

  it('registers a client with --dpop-bound-access-tokens and --require-signed-request-object, which then apply', async () => {
    const result = await run(
      'clients',
      'create',
      '--name',
      'Bound',
      '--grant-type',
      'client_credentials',
      '--dpop-bound-access-tokens',
      '--require-signed-request-object',
      '--json',
    );
    expect(result.code).toBe(0);
    const client = JSON.parse(result.out) as { client_id: string; client_secret: string };
    expect(client).toMatchObject({ dpop_bound_access_tokens: true, require_signed_request_object: true });
    const stored = await server.pool.query(
      'SELECT dpop_bound_access_tokens, require_signed_request_object FROM clients WHERE client_id = $1',
      [client.client_id],
    );
    expect(stored.rows[0]).toEqual({ dpop_bound_access_tokens: true, require_signed_request_object: true });
    // RFC 9449 §5.2: a client registered for bound tokens gets none without a proof.
    const token = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(client.client_id, client.client_secret) },
    );
    expect(token.status).toBe(400);
    expect(token.body.access_token).toBeUndefined();
    // Without the flags, both stay off.
    const plain = JSON.parse((await run('clients', 'create', '--name', 'Plain', '--json')).out) as Record<
      string,
      unknown
    >;
    expect(plain).toMatchObject({ dpop_bound_access_tokens: false, require_signed_request_object: false });
  });

  it('registers a resource server with --jwks or --client-secret-jwt, and issues an initial access token', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'rs-k1' }] };
    const keyed = await run(
      'resource-servers',
      'create',
      '--id',
      'cli-rs-keys',
      '--audience',
      'https://keys.example',
      '--jwks',
      JSON.stringify(jwks),
      '--json',
    );
    expect(keyed.code).toBe(0);
    expect(JSON.parse(keyed.out)).toMatchObject({ id: 'cli-rs-keys', jwks });
    const hmac = await run(
      'resource-servers',
      'create',
      '--id',
      'cli-rs-hmac',
      '--audience',
      'https://hmac.example',
      '--client-secret-jwt',
      '--json',
    );
    expect(hmac.code).toBe(0);
    expect(JSON.parse(hmac.out)).toMatchObject({ id: 'cli-rs-hmac', client_secret_jwt: true });
    const sealed = await server.pool.query('SELECT secret_ciphertext FROM resource_servers WHERE id = $1', [
      'cli-rs-hmac',
    ]);
    expect(sealed.rows[0].secret_ciphertext).toEqual(expect.any(String));
    const badJwks = await run(
      'resource-servers',
      'create',
      '--id',
      'x',
      '--audience',
      'y',
      '--jwks',
      '{nope',
    );
    expect(badJwks.code).toBe(2);
    expect(badJwks.err).toContain('--jwks must be a JSON Web Key Set');
    const iat = await run(
      'initial-access-tokens',
      'create',
      '--max-uses',
      '3',
      '--expires-in',
      '600',
      '--json',
    );
    expect(iat.code).toBe(0);
    const issued = JSON.parse(iat.out) as {
      initial_access_token: string;
      max_uses: number;
      expires_at: string;
    };
    expect(issued.max_uses).toBe(3);
    expect(typeof issued.initial_access_token).toBe('string');
    expect(Date.parse(issued.expires_at) - Date.now()).toBeGreaterThan(500_000);
    expect(Date.parse(issued.expires_at) - Date.now()).toBeLessThanOrEqual(600_000);
  });
});
