import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface LoginThrottleOptions {
  /** Shared counters across instances; without it, counters live in this process only. */
  redis?: Redis;
  keyPrefix?: string;
  maxFailuresPerAccount: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

export interface LoginThrottle {
  /** Seconds until the next attempt is allowed for this account or IP; 0 when not blocked. */
  retryAfter(username: string, ip: string): Promise<number>;
  recordFailure(username: string, ip: string): Promise<void>;
  /** A correct password clears the account's counter (not the IP's: one valid account must not unlock
   *  guessing against others from the same address). */
  recordSuccess(username: string): Promise<void>;
}

/**
 * Counts failed logins per account and per client IP in fixed windows (rate-limiter-flexible's
 * "login endpoint protection" pattern; OWASP Authentication Cheat Sheet, account lockout). Once either
 * counter reaches its limit, attempts are refused with 429 and Retry-After until the window ends, even
 * with the right password, so guessing cannot continue. The IP is express's req.ip: with `trust proxy`
 * off it is the socket address, so a forged X-Forwarded-For cannot move the key (RFC 9700 §4.13).
 */
export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const prefix = options.keyPrefix ?? 'auth:login-fail';
  const limiter = (name: string, points: number): RateLimiterAbstract => {
    const base = { keyPrefix: `${prefix}:${name}`, points, duration: options.windowSeconds };
    if (!options.redis) return new RateLimiterMemory(base);
    // If Redis fails, count in memory rather than either locking everyone out or throttling no one.
    return new RateLimiterRedis({
      ...base,
      storeClient: options.redis,
      insuranceLimiter: new RateLimiterMemory(base),
    });
  };
  const perAccount = limiter('account', options.maxFailuresPerAccount);
  const perIp = limiter('ip', options.maxFailuresPerIp);
  const accountKey = (username: string) => username.trim().toLowerCase();

  return {
    async retryAfter(username, ip) {
      const [account, address] = await Promise.all([perAccount.get(accountKey(username)), perIp.get(ip)]);
      let ms = 0;
      if (account && account.consumedPoints >= options.maxFailuresPerAccount) ms = account.msBeforeNext;
      if (address && address.consumedPoints >= options.maxFailuresPerIp)
        ms = Math.max(ms, address.msBeforeNext);
      return ms > 0 ? Math.ceil(ms / 1000) : 0;
    },
    async recordFailure(username, ip) {
      await Promise.all([perAccount.penalty(accountKey(username)), perIp.penalty(ip)]);
    },
    async recordSuccess(username) {
      await perAccount.delete(accountKey(username));
    },
  };
}
