/**
 * RFC 9449 §11.1: a proof's `jti` is accepted once while the proof could be accepted at all. auth-server
 * implements this over Redis (shared by its instances); `createSharedDpopReplayCache` is the same for a
 * resource server with Redis; `createLocalDpopReplayCache` is the in-process one for a single instance or
 * while Redis is down (as the introspection cache falls back).
 */
export interface DpopReplayCache {
  /** True the first time `key` is claimed within `ttlSeconds`; false for a replay. */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
}

/** Past this many keys the oldest is dropped; each lives only for a proof's acceptable age anyway. */
const DEFAULT_MAX_KEYS = 100_000;

export function createLocalDpopReplayCache(
  options: { maxKeys?: number; now?: () => number } = {},
): DpopReplayCache {
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  return {
    claim(key, ttlSeconds) {
      const at = now();
      const until = seen.get(key);
      if (until !== undefined && until > at) return Promise.resolve(false);
      seen.delete(key);
      seen.set(key, at + ttlSeconds * 1000);
      if (seen.size > maxKeys) seen.delete(seen.keys().next().value as string);
      return Promise.resolve(true);
    },
  };
}

/** The one Redis command the shared cache needs, as ioredis types it: common depends on no Redis client. */
export interface RedisSetNx {
  set(key: string, value: string, secondsToken: 'EX', seconds: number, nx: 'NX'): Promise<'OK' | null>;
}

/**
 * Proof jtis shared by every instance of a service through Redis (`SET NX EX`), so a proof replayed to
 * another instance behind the same load balancer is refused too. While a Redis call fails, `fallback`
 * (this process's cache) decides: a replay to this instance is still refused, one to another is not.
 */
export function createSharedDpopReplayCache(
  redis: RedisSetNx,
  options: { prefix: string; fallback?: DpopReplayCache },
): DpopReplayCache {
  const fallback = options.fallback ?? createLocalDpopReplayCache();
  return {
    async claim(key, ttlSeconds) {
      try {
        return (await redis.set(`${options.prefix}:${key}`, '1', 'EX', ttlSeconds, 'NX')) === 'OK';
      } catch {
        return fallback.claim(key, ttlSeconds);
      }
    },
  };
}
