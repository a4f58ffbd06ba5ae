import { parseCliArgs } from '../../src/cli/parse-cli-args';
import { buildRequest, runAdminCli, USAGE, UsageError } from '../../src/cli/run-admin-cli';

describe('admin CLI argument parsing', () => {
  it('builds a client registration from repeated and space-separated options', () => {
    const args = parseCliArgs([
      'clients',
      'create',
      '--name',
      'App',
      '--scope',
      'a b',
      '--scope=c',
      '--access-ttl',
      'none',
      '--json',
    ]);
    expect(args.flags.has('json')).toBe(true);
    expect(buildRequest(args)).toEqual({
      method: 'POST',
      path: '/clients',
      body: {
        name: 'App',
        client_type: 'confidential',
        scopes: ['a', 'b', 'c'],
        access_token_ttl_seconds: null,
      },
    });
  });
  it('sends require_pushed_authorization_requests only when its flag is given (RFC 9126 §6)', () => {
    const body = (argv: string[]) => (buildRequest(parseCliArgs(argv)).body ?? {}) as Record<string, unknown>;
    expect(
      body(['clients', 'create', '--name', 'A', '--require-pushed-authorization-requests']),
    ).toMatchObject({ require_pushed_authorization_requests: true });
    expect(body(['clients', 'create', '--name', 'A'])).not.toHaveProperty(
      'require_pushed_authorization_requests',
    );
  });
  it('sends dpop_bound_access_tokens, require_signed_request_object and client_secret_jwt only for their flags', () => {
    const body = (argv: string[]) => (buildRequest(parseCliArgs(argv)).body ?? {}) as Record<string, unknown>;
    expect(
      body([
        'clients',
        'create',
        '--name',
        'A',
        '--dpop-bound-access-tokens',
        '--require-signed-request-object',
      ]),
    ).toMatchObject({ dpop_bound_access_tokens: true, require_signed_request_object: true });
    const plain = body(['clients', 'create', '--name', 'A']);
    expect(plain).not.toHaveProperty('dpop_bound_access_tokens');
    expect(plain).not.toHaveProperty('require_signed_request_object');
    expect(
      body([
        'resource-servers',
        'create',
        '--id',
        'r',
        '--audience',
        'a',
        '--client-secret-jwt',
        '--jwks-uri',
        'https://k',
      ]),
    ).toEqual({ id: 'r', audience: 'a', client_secret_jwt: true, jwks_uri: 'https://k' });
    expect(buildRequest(parseCliArgs(['initial-access-tokens', 'create', '--max-uses', '2']))).toEqual({
      method: 'POST',
      path: '/initial-access-tokens',
      body: { max_uses: 2 },
    });
  });
  it('builds get/delete paths and revocations', () => {
    expect(buildRequest(parseCliArgs(['clients', 'delete', 'c 1']))).toEqual({
      method: 'DELETE',
      path: '/clients/c%201',
    });
    expect(buildRequest(parseCliArgs(['revoke', '--user', 'u1']))).toEqual({
      method: 'POST',
      path: '/revocations',
      body: { user_id: 'u1' },
    });
  });
  it('builds users reset-mfa as the admin API call, and refuses it without an id', () => {
    expect(buildRequest(parseCliArgs(['users', 'reset-mfa', 'u 1']))).toEqual({
      method: 'POST',
      path: '/users/u%201/mfa/reset',
    });
    expect(() => buildRequest(parseCliArgs(['users', 'reset-mfa']))).toThrow(UsageError);
  });

  it('refuses unknown commands and options without values', () => {
    expect(() => buildRequest(parseCliArgs(['clients', 'explode']))).toThrow(UsageError);
    expect(() => parseCliArgs(['clients', 'create', '--name'])).toThrow('--name needs a value');
  });
  it.each(['--help', '-h', 'clients create --help'])(
    'prints the usage on stdout and exits 0 for `%s` (asked-for help is not an error)',
    async (line: string) => {
      const argv = line.split(' ');
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdminCli(
        argv,
        {},
        (line) => out.push(line),
        (line) => err.push(line),
      );
      expect(code).toBe(0);
      expect(out).toEqual([USAGE]);
      expect(err).toEqual([]);
    },
  );
  it('exits 2 with the usage on stderr when no command is given', async () => {
    const err: string[] = [];
    const code = await runAdminCli(
      [],
      {},
      () => undefined,
      (line) => err.push(line),
    );
    expect(code).toBe(2);
    expect(err).toEqual([USAGE]);
  });
});
