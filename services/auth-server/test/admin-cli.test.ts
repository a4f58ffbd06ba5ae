import { runAdminCli } from '../src/cli/run-admin-cli';
import { seedDemo } from '../src/domain/admin/seed-demo';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, introspect, postForm } from './support/oauth-helpers';

describe('admin CLI and demo seed', () => {
  let server: RunningAuthServer;
  let env: Record<string, string>;
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(
      argv,
      env,
      (l) => out.push(l),
      (l) => err.push(l),
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
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

  it('creates a user', async () => {
    const result = await run(
      'users',
      'create',
      '--username',
      'cli-user',
      '--password',
      'long enough pw',
      '--claims',
      '{"name":"C"}',
      '--json',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ username: 'cli-user', claims: { name: 'C' } });
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
  });
});
