import { isContainerRuntimeAvailable } from './container-runtime';
import { startLocalPostgres } from './local-postgres';
import { startLocalRedis } from './local-redis';
import { memoryTempDir, sweepStaleClusters } from './memory-temp-dir';

export interface RunningServer {
  url: string;
  /** How it was obtained, for the test log: env, container or local. */
  source: 'env' | 'container' | 'local';
  stop(): Promise<void>;
}

/**
 * A real Postgres for tests, in this order: DATABASE_URL (a superuser URL we may CREATE DATABASE on),
 * a testcontainer when a container runtime answers, else a local server from the binaries on PATH,
 * its data in memory when there is room (memory-temp-dir.ts).
 */
export async function startTestPostgres(): Promise<RunningServer> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, source: 'env', stop: async () => {} };
  if (await isContainerRuntimeAvailable()) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:15-alpine')
      .withUsername('postgres')
      .withPassword('postgres')
      .withDatabase('postgres')
      .withCommand(['postgres', '-c', 'fsync=off', '-c', 'max_connections=300'])
      .start();
    return {
      url: container.getConnectionUri(),
      source: 'container',
      stop: async () => void (await container.stop()),
    };
  }
  const tempRoot = memoryTempDir();
  sweepStaleClusters(tempRoot);
  const local = await startLocalPostgres({ ephemeral: true, tempRoot });
  return { url: local.url, source: 'local', stop: () => local.stop() };
}

/** A real Redis for tests: REDIS_URL, a testcontainer, else a local redis-server. */
export async function startTestRedis(): Promise<RunningServer> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, source: 'env', stop: async () => {} };
  if (await isContainerRuntimeAvailable()) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7-alpine').start();
    return {
      url: container.getConnectionUrl(),
      source: 'container',
      stop: async () => void (await container.stop()),
    };
  }
  const local = await startLocalRedis();
  return { url: local.url, source: 'local', stop: () => local.stop() };
}
