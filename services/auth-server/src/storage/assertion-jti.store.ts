import type Redis from 'ioredis';
import type { AssertionJtiStore } from '../domain/clients/assertion-jti-store';

/** Past this many keys the in-process store drops its oldest (each is only kept ≤ 5.5 minutes anyway). */
const MAX_LOCAL_KEYS = 100_000;

/**
 * Used client-assertion `jti`s (RFC 7523 §3 item 7): `SET NX PX` in Redis, shared by every instance;
 * without Redis, or while a Redis call fails, in this process (as the failure back-off does): a replay
 * to this instance is still refused, one to another instance is not while Redis is down.
 */
export function createAssertionJtiStore(options: { redis?: Redis; prefix: string }): AssertionJtiStore {
  const { redis } = options;
  const local = new Map<string, number>();
  const claimLocal = (key: string, ttlSeconds: number): boolean => {
    const now = Date.now();
    const until = local.get(key);
    if (until !== undefined && until > now) return false;
    local.delete(key);
    local.set(key, now + ttlSeconds * 1000);
    if (local.size > MAX_LOCAL_KEYS) local.delete(local.keys().next().value as string);
    return true;
  };
  return {
    async claim(key, ttlSeconds) {
      if (redis) {
        try {
          const set = await redis.set(`${options.prefix}:${key}`, '1', 'EX', ttlSeconds, 'NX');
          return set === 'OK';
        } catch {
          // Redis down: this process's own record stands in (see above).
        }
      }
      return claimLocal(key, ttlSeconds);
    },
    async used(key) {
      if (redis) {
        try {
          return (await redis.exists(`${options.prefix}:${key}`)) === 1;
        } catch {
          // Redis down: as claim, this process's record stands in.
        }
      }
      return (local.get(key) ?? 0) > Date.now();
    },
  };
}
