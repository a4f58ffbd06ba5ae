import Redis from 'ioredis';
import {
  createLocalDpopReplayCache,
  createSharedDpopReplayCache,
  type DpopReplayCache,
  type Logger,
} from '@acme/common';
import type { SearchConfig } from '../config';

/** Redis keys of used DPoP proofs (RFC 9449 §11.1), apart from auth-server's `auth:dpop:jti`. */
const PREFIX = 'search:dpop:jti';

/**
 * The DPoP proof replay cache (RFC 9449 §11.1) of this instance. With REDIS_URL it is shared by every
 * search-store instance behind one address (a proof replayed to another instance is refused too), failing
 * fast (no offline queue, 500 ms per command) to this process's cache while Redis is down. Without it, the
 * embedded default: this process's cache, right for one instance.
 */
export function createDpopReplay(
  config: Pick<SearchConfig, 'REDIS_URL'>,
  logger: Logger,
): { replay: DpopReplayCache; close(): Promise<void> } {
  if (!config.REDIS_URL) return { replay: createLocalDpopReplayCache(), close: () => Promise.resolve() };
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    connectTimeout: 2000,
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (!down)
      logger.warn('redis unavailable; DPoP proof jtis are remembered per process', { error: error.message });
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis available again');
    down = false;
  });
  return {
    replay: createSharedDpopReplayCache(redis, { prefix: PREFIX }),
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
