import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, startLocalPostgres, startLocalRedis, type LocalPostgres } from '@acme/testkit';
import { seedDemo, type DemoSeed } from '@acme/devstack/dist/seed-demo';
import { startServiceProcess, type ServiceProcess } from '@acme/devstack/dist/service-process';

export const repoRoot = join(__dirname, '..', '..', '..');

/** A Postgres that can be stopped and started again on the same port and data (fault injection). */
export interface RestartablePostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  // Postgres runs as an unprivileged user when we are root: its data folder's parents must be traversable.
  const parent = mkdtempSync(join(tmpdir(), 'acme-rel-pg-'));
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'data');
  let server: LocalPostgres | undefined = await startLocalPostgres({ dataDir, ephemeral: true });
  const port = server.port;
  return {
    url: server.url,
    port,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      server ??= await startLocalPostgres({ dataDir, port, ephemeral: true });
    },
    async destroy() {
      await server?.stop();
      server = undefined;
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

export interface RestartableRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startRestartableRedis(): Promise<RestartableRedis> {
  let server: Awaited<ReturnType<typeof startLocalRedis>> | undefined = await startLocalRedis();
  const port = server.port;
  return {
    url: server.url,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      server ??= await startLocalRedis({ port });
    },
  };
}

/** A service process that can be killed (SIGKILL, a crash) or stopped and started again on its port. */
export interface Service {
  readonly url: string;
  readonly port: number;
  pid(): number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

function service(name: string, script: string, port: number, env: Record<string, string>): Service {
  let running: ServiceProcess | undefined;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    pid: () => running?.child.pid,
    async start() {
      running ??= await startServiceProcess({
        name,
        script,
        port,
        env,
        quiet: process.env.RELIABILITY_VERBOSE !== '1',
      });
    },
    async stop() {
      await running?.stop();
      running = undefined;
    },
    async kill() {
      const child = running?.child;
      running = undefined;
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface StackOptions {
  /** How many auth-server / search-store processes (same database, same Redis). */
  authInstances?: number;
  searchInstances?: number;
  /** search-store's INTROSPECTION_CACHE_MAX_SECONDS. */
  cacheSeconds?: number;
  authTimeoutMs?: number;
  /** Where the demo web client's codes go (a callback server in the browser test). */
  webRedirectUri?: string;
  extraAuthEnv?: Record<string, string>;
  extraSearchEnv?: Record<string, string>;
}

export interface Stack {
  postgres: RestartablePostgres;
  redis: RestartableRedis;
  auth: Service[];
  search: Service[];
  seed: DemoSeed;
  adminToken: string;
  issuer: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Both services as in production: separate processes from their built output (dist/main.js), configured
 * only through env, on a private Postgres and Redis that a test may stop and start. The demo seed (the same
 * one `npm start` applies) gives a user, a confidential client with search scopes and search-store's
 * resource-server credentials.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const postgres = await startRestartablePostgres();
  const redis = await startRestartableRedis().catch(async (error: unknown) => {
    await postgres.destroy();
    throw error;
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'acme-rel-seed-'));
  const auth: Service[] = [];
  const search: Service[] = [];
  const stop = async () => {
    for (const s of [...search, ...auth]) await s.stop().catch(() => undefined);
    await redis.stop().catch(() => undefined);
    await postgres.destroy().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const authPorts = await Promise.all(
      Array.from({ length: options.authInstances ?? 1 }, () => findFreePort()),
    );
    // Every instance shares one issuer (the first one's URL), as behind a load balancer.
    const issuer = `http://127.0.0.1:${authPorts[0]}`;
    const secrets = {
      TOKEN_SIGNING_SECRET: randomBytes(32).toString('base64url'),
      ADMIN_TOKEN: randomBytes(32).toString('base64url'),
    };
    const authEnv = {
      ISSUER: issuer,
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      ...secrets,
      LOG_LEVEL: 'error',
      AUTH_FAILURES_PER_MINUTE: '10000',
      ...options.extraAuthEnv,
    };
    for (const port of authPorts) {
      const instance = service(
        'auth-server',
        join(repoRoot, 'services/auth-server/dist/main.js'),
        port,
        authEnv,
      );
      auth.push(instance);
      await instance.start();
    }
    const seed = await seedDemo({
      repoRoot,
      dataDir,
      env: { ISSUER: issuer, DATABASE_URL: postgres.url, ...secrets },
      webRedirectUri: options.webRedirectUri ?? 'http://127.0.0.1/cb',
      spaRedirectUri: 'http://127.0.0.1/spa',
    });
    const searchEnv = {
      DATABASE_URL: postgres.url,
      AUTH_SERVER_URL: issuer,
      INTROSPECTION_CLIENT_ID: seed.resourceServer.id,
      INTROSPECTION_CLIENT_SECRET: seed.resourceServer.secret,
      INTROSPECTION_CACHE_MAX_SECONDS: String(options.cacheSeconds ?? 2),
      AUTH_SERVER_TIMEOUT_MS: String(options.authTimeoutMs ?? 1000),
      LOG_LEVEL: 'error',
      ...options.extraSearchEnv,
    };
    for (let i = 0; i < (options.searchInstances ?? 1); i++) {
      const port = await findFreePort();
      const instance = service('search-store', join(repoRoot, 'services/search-store/dist/main.js'), port, {
        ...searchEnv,
        NODE_NAME: `node-${i + 1}`,
      });
      search.push(instance);
      await instance.start();
    }
    return {
      postgres,
      redis,
      auth,
      search,
      seed,
      adminToken: secrets.ADMIN_TOKEN,
      issuer,
      databaseUrl: postgres.url,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
