import type { Redis } from 'ioredis';
import { failureSource } from './failure-source';
import { createSourceThrottle } from './source-throttle';

export interface LoginThrottleOptions {
  /** Shared counters across instances; without it, counters live in this process only. */
  redis?: Redis;
  keyPrefix?: string;
  /** Failures of one account from one source before it backs off. */
  maxFailuresPerAccount: number;
  /** Failures from one source, whatever the accounts, before it backs off. */
  maxFailuresPerIp: number;
  /** Counters are forgotten this long after the last failure; also the longest delay. */
  windowSeconds: number;
}

export interface LoginThrottle {
  /** Seconds until this account may be tried again from this address; 0 when it may now. */
  retryAfter(username: string, ip: string): Promise<number>;
  recordFailure(username: string, ip: string): Promise<void>;
  /** A correct password clears this account's counter at this address (not the address's own: one
   *  valid account must not reset guessing against others from the same address). */
  recordSuccess(username: string, ip: string): Promise<void>;
}

/**
 * Progressive delay per account at a source and per source (OWASP Authentication Cheat Sheet, "account
 * lockout" alternatives): past the free failures each further failure doubles the wait (1 s, 2 s, 4 s …,
 * up to the window). The delay is asked before the password is checked, so a delayed source learns
 * nothing; but it binds only the source that failed: there is no account-wide lock, so nobody can lock
 * an owner out by failing against the account from elsewhere. The source is express's req.ip (the socket
 * address unless `trust proxy`, so a forged X-Forwarded-For cannot move the key, RFC 9700 §4.13), an
 * IPv6 address counted by its /64.
 */
export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const throttle = createSourceThrottle({
    ...(options.redis ? { redis: options.redis } : {}),
    prefix: options.keyPrefix ?? 'auth:login-fail',
    keyName: 'account',
    maxFailuresPerKey: options.maxFailuresPerAccount,
    maxFailuresPerIp: options.maxFailuresPerIp,
    windowSeconds: options.windowSeconds,
  });
  // JSON keeps the two parts apart whatever characters the username holds.
  const accountKey = (username: string, ip: string) =>
    JSON.stringify([username.trim().toLowerCase(), failureSource(ip)]);

  return {
    retryAfter: (username, ip) => throttle.retryAfter(accountKey(username, ip), ip),
    recordFailure: (username, ip) => throttle.recordFailure(accountKey(username, ip), ip),
    recordSuccess: (username, ip) => throttle.clear(accountKey(username, ip)),
  };
}
