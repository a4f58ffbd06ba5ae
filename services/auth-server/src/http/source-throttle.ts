import type { Redis } from 'ioredis';
import { createFailureBackoff } from '../storage/failure-backoff.store';
import { failureSource } from './failure-source';

export interface SourceThrottleOptions {
  /** Shared counters across instances; without it, counters live in this process only. */
  redis?: Redis;
  /** Counter keys are `<prefix>:<keyName>:…` and `<prefix>:ip:…`. */
  prefix: string;
  keyName: string;
  /** Failures under one key before it backs off. */
  maxFailuresPerKey: number;
  /** Failures from one source, whatever the keys, before it backs off. */
  maxFailuresPerIp: number;
  /** Counters are forgotten this long after the last failure; also the longest delay. */
  windowSeconds: number;
}

export interface SourceThrottle {
  /** Seconds until this key may be tried again from this address; 0 when it may now. */
  retryAfter(key: string, ip: string): Promise<number>;
  recordFailure(key: string, ip: string): Promise<void>;
  /** Forgets the key's failures (the address's own stay). */
  clear(key: string): Promise<void>;
}

/**
 * Two back-off counters (failure-backoff.store.ts: 1 s doubling per failure past the free ones, up to
 * the window) asked together: one for what the caller keys by (an account at an address, a signed-in
 * user) and one for the source address (express's req.ip; an IPv6 address counted by its /64). The
 * longer wait wins. Shared by the login and the device-code entry so both throttle the same way.
 */
export function createSourceThrottle(options: SourceThrottleOptions): SourceThrottle {
  const common = {
    ...(options.redis ? { redis: options.redis } : {}),
    windowSeconds: options.windowSeconds,
    maxDelaySeconds: options.windowSeconds,
  };
  const perKey = createFailureBackoff({
    ...common,
    prefix: `${options.prefix}:${options.keyName}`,
    freeFailures: options.maxFailuresPerKey,
  });
  const perSource = createFailureBackoff({
    ...common,
    prefix: `${options.prefix}:ip`,
    freeFailures: options.maxFailuresPerIp,
  });
  return {
    async retryAfter(key, ip) {
      const [byKey, bySource] = await Promise.all([
        perKey.blockedMs(key),
        perSource.blockedMs(failureSource(ip)),
      ]);
      const ms = Math.max(byKey, bySource);
      return ms > 0 ? Math.ceil(ms / 1000) : 0;
    },
    async recordFailure(key, ip) {
      await Promise.all([perKey.recordFailure(key), perSource.recordFailure(failureSource(ip))]);
    },
    async clear(key) {
      await perKey.clear(key);
    },
  };
}
