import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const repoRoot = join(__dirname, '..', '..', '..');

const compose = spawnSync('docker-compose', ['version'], { encoding: 'utf8' });
const composeMissing = compose.error !== undefined;
const itWithCompose = composeMissing ? it.skip : it;

interface ComposeService {
  restart?: string;
  healthcheck?: { test?: unknown };
  depends_on?: Record<string, { condition?: string }>;
  environment?: Record<string, string>;
  ports?: string[];
}

/** `docker-compose config`, in an environment without any of compose's variables unless given. */
function composeConfig(env: Record<string, string> = {}): { services: Record<string, ComposeService> } {
  const result = spawnSync('docker-compose', ['config'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`docker-compose config failed: ${result.stderr}`);
  return parse(result.stdout) as { services: Record<string, ComposeService> };
}

describe('docker-compose.yml', () => {
  if (composeMissing)
    it.todo('docker-compose config: skipped, docker-compose is not installed (bash infra/install-deps.sh)');

  itWithCompose(
    'validates, restarts services, gates start order on health and shares one search-store secret',
    () => {
      const source = parse(readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(source).not.toHaveProperty('version'); // obsolete in the Compose Specification

      const { services } = composeConfig();
      expect(Object.keys(services).sort()).toEqual(['auth-server', 'postgres', 'redis', 'search-store']);
      for (const [name, service] of Object.entries(services)) {
        expect([name, service.restart]).toEqual([name, 'unless-stopped']);
        expect([name, service.healthcheck?.test]).toEqual([name, expect.any(Array)]);
        for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {}))
          expect([name, dependency, condition]).toEqual([name, dependency, 'service_healthy']);
      }
      expect(Object.keys(services['auth-server']!.depends_on ?? {}).sort()).toEqual(['postgres', 'redis']);
      expect(Object.keys(services['search-store']!.depends_on ?? {}).sort()).toEqual([
        'auth-server',
        'postgres',
      ]);
      // With nothing set (a fresh `docker compose up`), both sides get the same dev secret.
      const auth = services['auth-server']!.environment!;
      const search = services['search-store']!.environment!;
      // Each service reaches its dependencies by their compose names.
      expect(auth.DATABASE_URL).toBe('postgres://acme@postgres:5432/acme');
      expect(search.DATABASE_URL).toBe('postgres://acme@postgres:5432/acme');
      expect(auth.REDIS_URL).toBe('redis://redis:6379');
      expect(search.REDIS_URL).toBe('redis://redis:6379');
      expect(search.AUTH_SERVER_URL).toBe('http://auth-server:4000');
      expect(search.INTROSPECTION_CLIENT_ID).toBe('search-store');
      expect(auth.BOOTSTRAP_SEARCH_STORE_SECRET!.length).toBeGreaterThanOrEqual(32);
      expect(search.INTROSPECTION_CLIENT_SECRET).toBe(auth.BOOTSTRAP_SEARCH_STORE_SECRET);
      expect(services['search-store']!.environment!.PGPASSWORD).toBe(
        services.postgres!.environment!.POSTGRES_PASSWORD,
      );

      // One variable sets it for both.
      const secret = randomBytes(32).toString('base64url');
      const configured = composeConfig({ SEARCH_STORE_CLIENT_SECRET: secret }).services;
      expect(configured['auth-server']!.environment!.BOOTSTRAP_SEARCH_STORE_SECRET).toBe(secret);
      expect(configured['search-store']!.environment!.INTROSPECTION_CLIENT_SECRET).toBe(secret);
    },
  );
});
