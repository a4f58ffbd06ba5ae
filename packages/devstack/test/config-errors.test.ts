import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const repoRoot = join(__dirname, '..', '..', '..');

function start(service: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [join(repoRoot, 'services', service, 'dist', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

/** The built services, started as production starts them: configuration only through env. */
describe('start-up configuration errors', () => {
  it('auth-server exits 1 naming every bad variable, never printing a value', () => {
    const secret = 'too-short-secret';
    const result = start('auth-server', {
      DATABASE_URL: 'not-a-url',
      ADMIN_TOKEN: secret,
      PORT: '70000',
      BOOTSTRAP_SEARCH_STORE_SECRET: 'bootstrap secret with spaces, 32+ characters long',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('ISSUER: is required');
    expect(result.stderr).toContain('DATABASE_URL: must be a valid url');
    expect(result.stderr).toContain('TOKEN_SIGNING_SECRET: is required');
    expect(result.stderr).toContain('ADMIN_TOKEN: must be at least 32 characters');
    expect(result.stderr).toContain('PORT: must be at most 65535');
    expect(result.stderr).toContain('BOOTSTRAP_SEARCH_STORE_SECRET: must be printable ASCII without spaces');
    expect(result.stderr).not.toContain('bootstrap secret');
    expect(result.stderr).not.toContain(secret);
    expect(result.stderr).not.toContain('not-a-url');
  });

  it('search-store exits 1 naming every bad variable, never printing a value', () => {
    const secret = 'short-secret';
    const result = start('search-store', {
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
      AUTH_SERVER_URL: 'http://127.0.0.1:1',
      INTROSPECTION_CLIENT_SECRET: secret,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('INTROSPECTION_CLIENT_ID: is required');
    expect(result.stderr).toContain('INTROSPECTION_CLIENT_SECRET: must be at least 16 characters');
    expect(result.stderr).not.toContain(secret);
  });
});
