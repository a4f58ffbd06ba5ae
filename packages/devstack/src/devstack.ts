import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MALLOC_ENV } from '@acme/common';
import { findFreePort, startLocalPostgres, type LocalPostgres } from '@acme/testkit';
import { loadOrCreateSecrets } from './secrets-file';
import { startServiceProcess, type ServiceProcess } from './service-process';
import { seedDemo, type DemoSeed } from './seed-demo';

export interface DevstackOptions {
  repoRoot: string;
  dataDir: string;
  /** Use these instead of a local Postgres / the in-process cache. */
  databaseUrl?: string;
  redisUrl?: string;
  authPort?: number;
  searchPort?: number;
  quiet?: boolean;
  /**
   * The caller's environment, handed to both services under the variables npm start sets itself
   * (DEVSTACK_OWN_VARIABLES), so `LOG_LEVEL=debug npm start` works as the README's tables say.
   */
  passThroughEnv?: Record<string, string | undefined>;
}

/** What npm start decides for the services; the README lists these under "What npm start sets". */
export const DEVSTACK_OWN_VARIABLES = [
  'PORT',
  'HOST',
  'ISSUER',
  'DATABASE_URL',
  'REDIS_URL',
  'TOKEN_SIGNING_SECRET',
  'ADMIN_TOKEN',
  'AUTH_SERVER_URL',
  'INTROSPECTION_CLIENT_ID',
  'INTROSPECTION_CLIENT_SECRET',
  'DATA_PATH',
  // The demo seed registers search-store with its own secret; a bootstrap one would fight it.
  'BOOTSTRAP_SEARCH_STORE_SECRET',
] as const;

function passThrough(env: Record<string, string | undefined> = {}): Record<string, string> {
  const own = new Set<string>(DEVSTACK_OWN_VARIABLES);
  const kept: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !own.has(name)) kept[name] = value;
  return kept;
}

export interface Devstack {
  authUrl: string;
  searchUrl: string;
  databaseUrl: string;
  seed: DemoSeed;
  adminToken: string;
  stop(): Promise<void>;
}

/**
 * npm start, as a function: a local Postgres kept under dataDir (unless DATABASE_URL is given),
 * generated secrets kept beside it, auth-server, a demo seed (idempotent), then search-store with the
 * seeded resource-server credentials. Stopping stops the services first, then Postgres.
 */
export async function startDevstack(options: DevstackOptions): Promise<Devstack> {
  mkdirSync(options.dataDir, { recursive: true });
  const secrets = loadOrCreateSecrets(join(options.dataDir, 'secrets.json'));
  let postgres: LocalPostgres | undefined;
  let databaseUrl = options.databaseUrl;
  if (!databaseUrl) {
    postgres = await startLocalPostgres({
      dataDir: join(options.dataDir, 'postgres'),
      logFile: join(options.dataDir, 'postgres.log'),
    });
    databaseUrl = postgres.url;
  }
  const inherited = passThrough(options.passThroughEnv);
  const services: ServiceProcess[] = [];
  const stop = async () => {
    for (const service of services.reverse()) await service.stop();
    await postgres?.stop();
  };
  try {
    const authPort = options.authPort ?? (await findFreePort());
    const authUrl = `http://127.0.0.1:${authPort}`;
    const auth = await startServiceProcess({
      name: 'auth-server',
      script: join(options.repoRoot, 'services/auth-server/dist/main.js'),
      port: authPort,
      quiet: options.quiet,
      env: {
        ...inherited,
        ISSUER: authUrl,
        DATABASE_URL: databaseUrl,
        ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
        TOKEN_SIGNING_SECRET: secrets.TOKEN_SIGNING_SECRET,
        ADMIN_TOKEN: secrets.ADMIN_TOKEN,
      },
    });
    services.push(auth);
    const seed = await seedDemo({
      repoRoot: options.repoRoot,
      dataDir: options.dataDir,
      env: {
        ISSUER: authUrl,
        DATABASE_URL: databaseUrl,
        TOKEN_SIGNING_SECRET: secrets.TOKEN_SIGNING_SECRET,
        ADMIN_TOKEN: secrets.ADMIN_TOKEN,
      },
      webRedirectUri: 'http://localhost:3000/callback',
      spaRedirectUri: 'http://localhost:3001/callback',
    });
    const searchPort = options.searchPort ?? (await findFreePort());
    const search = await startServiceProcess({
      name: 'search-store',
      script: join(options.repoRoot, 'services/search-store/dist/main.js'),
      port: searchPort,
      quiet: options.quiet,
      env: {
        // glibc's allocator settings (common/config/malloc-env.ts); one set in your environment wins.
        ...MALLOC_ENV,
        ...inherited,
        DATABASE_URL: databaseUrl,
        AUTH_SERVER_URL: authUrl,
        INTROSPECTION_CLIENT_ID: seed.resourceServer.id,
        INTROSPECTION_CLIENT_SECRET: seed.resourceServer.secret,
        DATA_PATH: postgres?.dataDir ?? options.dataDir,
      },
    });
    services.push(search);
    return { authUrl, searchUrl: search.url, databaseUrl, seed, adminToken: secrets.ADMIN_TOKEN, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
