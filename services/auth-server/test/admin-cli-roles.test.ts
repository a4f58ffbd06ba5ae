import { runAdminCli } from '../src/cli/run-admin-cli';
import { admin, basic, postForm } from './support/oauth-helpers';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';

/** The CLI's console-era commands: the admin role, user listing and state, secret rotation, the audit log. */
describe('admin CLI: roles, users, secrets, audit', () => {
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

  it('grants and revokes the admin role, lists and disables users, rotates a secret, reads the audit log', async () => {
    const userId = (
      await admin(server, 'POST', '/users', { username: 'ops-lead', password: 'ops lead password' })
    ).body.user_id as string;
    expect((await run('users', 'grant-admin', userId)).code).toBe(0);
    const listed = await run('users', 'list', '--search', 'ops', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out)).toMatchObject([
      { username: 'ops-lead', roles: ['admin'], disabled: false },
    ]);
    expect((await run('users', 'revoke-admin', userId)).code).toBe(0);
    expect((await run('users', 'disable', userId)).code).toBe(0);
    expect(JSON.parse((await run('users', 'list', '--search', 'ops', '--json')).out)).toMatchObject([
      { roles: [], disabled: true },
    ]);

    const client = await admin(server, 'POST', '/clients', {
      name: 'CLI rotated',
      client_type: 'confidential',
      grant_types: ['client_credentials'],
    });
    const clientId = client.body.client_id as string;
    const rotated = await run('clients', 'rotate-secret', clientId, '--json');
    expect(rotated.code).toBe(0);
    const secret = (JSON.parse(rotated.out) as { client_secret: string }).client_secret;
    const token = (s: string) =>
      postForm(
        `${server.url}/token`,
        { grant_type: 'client_credentials' },
        { authorization: basic(clientId, s) },
      );
    expect((await token(client.body.client_secret as string)).status).toBe(401);
    expect((await token(secret)).status).toBe(200);

    const audit = await run('audit', 'list', '--limit', '5', '--json');
    expect(audit.code).toBe(0);
    const events = (JSON.parse(audit.out) as { events: { action: string; actor: string }[] }).events;
    expect(events.map((e) => [e.action, e.actor])).toEqual([
      ['client.secret_rotate', 'cli'],
      ['client.create', 'admin-token'],
      ['user.disable', 'cli'],
      ['user.role_revoke', 'cli'],
      ['user.role_grant', 'cli'],
    ]);
    expect(audit.out).not.toContain(secret);
  });
});
