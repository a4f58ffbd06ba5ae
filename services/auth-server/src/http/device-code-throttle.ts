import type { Redis } from 'ioredis';
import { createSourceThrottle } from './source-throttle';

export interface DeviceCodeThrottleOptions {
  redis?: Redis;
  keyPrefix?: string;
  /** Wrong codes one signed-in user may enter, wherever from, before backing off. */
  maxFailuresPerUser: number;
  /** Wrong codes from one source address, whatever the users, before it backs off. */
  maxFailuresPerIp: number;
  /** Counters are forgotten this long after the last failure; also the longest delay. */
  windowSeconds: number;
}

export interface DeviceCodeThrottle {
  /** Seconds until this user at this address may enter a code again; 0 when they may now. */
  retryAfter(userId: string, ip: string): Promise<number>;
  recordFailure(userId: string, ip: string): Promise<void>;
}

/**
 * RFC 8628 §5.1: user codes are short, so their entry is rate-limited. The login's backoff helper
 * (failure-backoff.store.ts: 1 s doubling per failure past the free ones, up to the window), keyed by the
 * signed-in user who failed and by the address that failed: never by the code tried (anyone could then
 * block a device's code) nor by anything another person holds, so nobody is delayed by someone else's
 * guesses (except behind one address, past its larger budget). A success clears nothing: entering one
 * code of one's own must not buy more guesses. Asked before the code is looked up, so a delayed source
 * learns nothing.
 */
export function createDeviceCodeThrottle(options: DeviceCodeThrottleOptions): DeviceCodeThrottle {
  const throttle = createSourceThrottle({
    ...(options.redis ? { redis: options.redis } : {}),
    prefix: options.keyPrefix ?? 'auth:device-code-fail',
    keyName: 'user',
    maxFailuresPerKey: options.maxFailuresPerUser,
    maxFailuresPerIp: options.maxFailuresPerIp,
    windowSeconds: options.windowSeconds,
  });
  return {
    retryAfter: (userId, ip) => throttle.retryAfter(userId, ip),
    recordFailure: (userId, ip) => throttle.recordFailure(userId, ip),
  };
}
