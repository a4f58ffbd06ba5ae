import { startTestPostgres, startTestRedis, type RunningServer } from './servers';

/**
 * Jest globalSetup: one Postgres and one Redis for the whole run. Workers are forked after this
 * returns, so the URLs travel to them through process.env.
 */
export default async function globalSetup(): Promise<void> {
  const [postgres, redis] = await Promise.all([startTestPostgres(), startTestRedis()]);
  process.env.TEST_PG_ADMIN_URL = postgres.url;
  process.env.TEST_REDIS_URL = redis.url;
  (globalThis as { __acmeServers?: RunningServer[] }).__acmeServers = [postgres, redis];
  process.stdout.write(`\n[testkit] postgres (${postgres.source}) and redis (${redis.source}) ready\n`);
}
