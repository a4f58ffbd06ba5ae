import type { Redis } from 'ioredis';
import { createSourceThrottle } from './source-throttle';

export interface SecondFactorThrottle {
  /** Seconds until this user's second factor may be tried again from this address; 0 when it may now. */
  retryAfter(userId: string, ip: string): Promise<number>;
  recordFailure(userId: string, ip: string): Promise<void>;
  /** A correct second factor clears the user's counter (the address's own stays). */
  recordSuccess(userId: string): Promise<void>;
}

/**
 * Wrong TOTP or recovery codes, counted by the failure back-off the login uses (1 s doubling past the free
 * failures, up to the window) in counters of their own: per user wherever from, and per source address.
 * Per user, unlike the password step: whoever reaches this step knows the password, and a 6-digit code
 * guessed from many addresses needs an account-wide bound. The price is that someone holding the password
 * can slow the owner's second step (never the password step: these counters are apart from the login's);
 * see docs/FLOWS.md#multi-factor-sign-in.
 */
export function createSecondFactorThrottle(options: {
  redis?: Redis;
  keyPrefix?: string;
  maxFailuresPerUser: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}): SecondFactorThrottle {
  const throttle = createSourceThrottle({
    ...(options.redis ? { redis: options.redis } : {}),
    prefix: options.keyPrefix ?? 'auth:mfa-fail',
    keyName: 'user',
    maxFailuresPerKey: options.maxFailuresPerUser,
    maxFailuresPerIp: options.maxFailuresPerIp,
    windowSeconds: options.windowSeconds,
  });
  return {
    retryAfter: (userId, ip) => throttle.retryAfter(userId, ip),
    recordFailure: (userId, ip) => throttle.recordFailure(userId, ip),
    recordSuccess: (userId) => throttle.clear(userId),
  };
}
