import type Redis from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { OAuthError } from '@acme/common';

/**
 * Failed client and resource-server authentications per key (IP, and the client or resource-server id
 * tried, so a spread-out guess at one credential is throttled too), on Redis when configured so every
 * instance counts together; in memory otherwise and as Redis's stand-in while it is down.
 */
export function createFailureLimiter(options: { redis?: Redis; points: number; prefix: string }) {
  const memory = new RateLimiterMemory({ keyPrefix: options.prefix, points: options.points, duration: 60 });
  const limiter: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: options.prefix,
        points: options.points,
        duration: 60,
        insuranceLimiter: memory,
      })
    : memory;
  const tooMany = (ms: number) =>
    new OAuthError('too_many_requests', 'too many failed attempts', {
      'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))),
    });
  return {
    /** Throws 429 while any of the keys (IP, client id) is blocked. */
    async check(...keys: string[]): Promise<void> {
      for (const key of keys) {
        const state = await limiter.get(key).catch(() => null);
        if (state && state.consumedPoints >= options.points) throw tooMany(state.msBeforeNext);
      }
    },
    /** Counts a failure against every key; throws 429 when one exceeded the budget. */
    async fail(...keys: string[]): Promise<void> {
      let blockedMs = 0;
      for (const key of keys) {
        try {
          await limiter.consume(key);
        } catch (error) {
          if (error instanceof RateLimiterRes) blockedMs = Math.max(blockedMs, error.msBeforeNext);
        }
      }
      if (blockedMs > 0) throw tooMany(blockedMs);
    },
  };
}
export type FailureLimiter = ReturnType<typeof createFailureLimiter>;
