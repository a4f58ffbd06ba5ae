import { startLocalRedis, type LocalRedis } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './start-auth-server';

/** Two auth-server instances on one database and a Redis of their own, which a test may stop. */
export interface TwoOnLocalRedis {
  redis: LocalRedis;
  a: RunningAuthServer;
  b: RunningAuthServer;
}

export async function startTwoOnLocalRedis(): Promise<TwoOnLocalRedis> {
  const redis = await startLocalRedis();
  const a = await startAuthServer({ REDIS_URL: redis.url });
  const b = await startAuthServer({ REDIS_URL: redis.url }, { databaseUrl: a.config.DATABASE_URL });
  return { redis, a, b };
}

/** Stops both instances, then the Redis (which the test may have stopped already). */
export async function stopTwoOnLocalRedis({ redis, a, b }: TwoOnLocalRedis): Promise<void> {
  await a.stop();
  await b.stop();
  await redis.stop().catch(() => undefined);
}
