import Redis from 'ioredis';
import type { Logger } from '@acme/common';

/**
 * Redis connections that fail fast: no offline queue and a short command timeout, so a Redis outage
 * turns into cache misses answered from Postgres instead of requests hanging (issue 4).
 */
export function connectRedis(url: string, logger: Logger): { redis: Redis; subscriber: Redis } {
  const options = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    connectTimeout: 2000,
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
  };
  const redis = new Redis(url, options);
  // No autoResubscribe: ioredis re-sends SUBSCRIBE on reconnect without handling its promise, so a
  // connection that closes again before the reply (a flapping Redis, or shutdown right after a
  // reconnect) left an unhandled "Connection is closed." rejection, which ends a Node 20 process. The
  // stores subscribe again themselves on every 'ready', with the failure handled
  // (introspection-cache.store.ts, revocation-bus.store.ts).
  const subscriber = new Redis(url, {
    ...options,
    enableOfflineQueue: true,
    commandTimeout: undefined,
    autoResubscribe: false,
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (!down) logger.warn('redis unavailable', { error: error.message });
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis available again');
    down = false;
  });
  subscriber.on('error', () => undefined); // reported through the main connection
  return { redis, subscriber };
}
