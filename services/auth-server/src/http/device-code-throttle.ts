import type { Redis } from 'ioredis';
import { createFailureBackoff } from '../storage/failure-backoff.store';
import { failureSource } from './failure-source';

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
  const prefix = options.keyPrefix ?? 'auth:device-code-fail';
  const common = {
    ...(options.redis ? { redis: options.redis } : {}),
    windowSeconds: options.windowSeconds,
    maxDelaySeconds: options.windowSeconds,
  };
  const perUser = createFailureBackoff({
    ...common,
    prefix: `${prefix}:user`,
    freeFailures: options.maxFailuresPerUser,
  });
  const perSource = createFailureBackoff({
    ...common,
    prefix: `${prefix}:ip`,
    freeFailures: options.maxFailuresPerIp,
  });
  return {
    async retryAfter(userId, ip) {
      const [user, source] = await Promise.all([
        perUser.blockedMs(userId),
        perSource.blockedMs(failureSource(ip)),
      ]);
      const ms = Math.max(user, source);
      return ms > 0 ? Math.ceil(ms / 1000) : 0;
    },
    async recordFailure(userId, ip) {
      await Promise.all([perUser.recordFailure(userId), perSource.recordFailure(failureSource(ip))]);
    },
  };
}
