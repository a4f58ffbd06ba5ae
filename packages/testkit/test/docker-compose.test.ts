import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { findBinary } from '../src';

const root = join(__dirname, '..', '..', '..');

describe('docker-compose.yml', () => {
  it('is accepted by docker-compose config and wires every service to its dependencies', () => {
    const binary = findBinary('docker-compose');
    if (!binary) throw new Error('docker-compose is not installed: run infra/install-deps.sh');
    const env = {
      ...process.env,
      POSTGRES_PASSWORD: 'pw',
      TOKEN_SIGNING_SECRET: 's'.repeat(32),
      ADMIN_TOKEN: 'a'.repeat(32),
      SEARCH_STORE_CLIENT_SECRET: 'c'.repeat(32),
    };
    const rendered = execFileSync(binary, ['-f', join(root, 'docker-compose.yml'), 'config'], {
      env,
      encoding: 'utf8',
    });
    expect(rendered).toMatch(/auth-server:/);
    expect(rendered).toMatch(/search-store:/);
    expect(rendered).toContain('DATABASE_URL: postgres://acme:pw@postgres:5432/acme');
    expect(rendered).toContain('AUTH_SERVER_URL: http://auth-server:4000');
  });

  it('refuses to render without the secrets, since secrets have no defaults', () => {
    const binary = findBinary('docker-compose');
    if (!binary) throw new Error('docker-compose is not installed: run infra/install-deps.sh');
    const env = { PATH: process.env.PATH ?? '' };
    expect(() =>
      execFileSync(binary, ['-f', join(root, 'docker-compose.yml'), 'config'], { env, stdio: 'pipe' }),
    ).toThrow(/POSTGRES_PASSWORD/);
  });
});
