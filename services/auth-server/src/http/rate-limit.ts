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
  const blocked = new Map<string, number>();
  const tooMany = (ms: number) =>
    new OAuthError('too_many_requests', 'too many failed attempts', {
      'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))),
    });
  return {
    /**
     * Throws 429 while any of the keys (IP, client id) is blocked. Answered from memory: a successful
     * authentication costs no Redis round trip; counting happens on failures only (the secrets are
     * high-entropy, so throttling bounds abuse, not guessing odds).
     */
    check(...keys: string[]): void {
      const now = Date.now();
      for (const key of keys) {
        const until = blocked.get(key);
        if (until === undefined) continue;
        if (until > now) throw tooMany(until - now);
        blocked.delete(key);
      }
    },
    /** Counts a failure against every key (shared through Redis); throws 429 when one exceeded the budget. */
    async fail(...keys: string[]): Promise<void> {
      let blockedMs = 0;
      for (const key of keys) {
        try {
          await limiter.consume(key);
        } catch (error) {
          if (!(error instanceof RateLimiterRes)) continue;
          blockedMs = Math.max(blockedMs, error.msBeforeNext);
          if (blocked.size > 100_000) blocked.clear();
          blocked.set(key, Date.now() + error.msBeforeNext);
        }
      }
      if (blockedMs > 0) throw tooMany(blockedMs);
    },
  };
}
export type FailureLimiter = ReturnType<typeof createFailureLimiter>;
