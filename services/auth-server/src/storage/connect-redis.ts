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
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true, commandTimeout: undefined });
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
