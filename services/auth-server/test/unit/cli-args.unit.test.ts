import { parseCliArgs } from '../../src/cli/parse-cli-args';
import { buildRequest, UsageError } from '../../src/cli/run-admin-cli';

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
  it('refuses unknown commands and options without values', () => {
    expect(() => buildRequest(parseCliArgs(['clients', 'explode']))).toThrow(UsageError);
    expect(() => parseCliArgs(['clients', 'create', '--name'])).toThrow('--name needs a value');
  });
});
