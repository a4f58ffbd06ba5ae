import type { Redis } from 'ioredis';
import { createFailureBackoff } from '../storage/failure-backoff.store';
import { failureSource } from './failure-source';

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
  const prefix = options.keyPrefix ?? 'auth:login-fail';
  const common = {
    ...(options.redis ? { redis: options.redis } : {}),
    windowSeconds: options.windowSeconds,
    maxDelaySeconds: options.windowSeconds,
  };
  const perAccount = createFailureBackoff({
    ...common,
    prefix: `${prefix}:account`,
    freeFailures: options.maxFailuresPerAccount,
  });
  const perSource = createFailureBackoff({
    ...common,
    prefix: `${prefix}:ip`,
    freeFailures: options.maxFailuresPerIp,
  });
  // JSON keeps the two parts apart whatever characters the username holds.
  const accountKey = (username: string, ip: string) =>
    JSON.stringify([username.trim().toLowerCase(), failureSource(ip)]);

  return {
    async retryAfter(username, ip) {
      const [account, source] = await Promise.all([
        perAccount.blockedMs(accountKey(username, ip)),
        perSource.blockedMs(failureSource(ip)),
      ]);
      const ms = Math.max(account, source);
      return ms > 0 ? Math.ceil(ms / 1000) : 0;
    },
    async recordFailure(username, ip) {
      await Promise.all([
        perAccount.recordFailure(accountKey(username, ip)),
        perSource.recordFailure(failureSource(ip)),
      ]);
    },
    async recordSuccess(username, ip) {
      await perAccount.clear(accountKey(username, ip));
    },
  };
}
