import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { ClientContext, Result } from 'ioredis';

/**
 * Counts one failure and, past the free budget, blocks the key for 1 s, 2 s, 4 s … up to the cap
 * (exponential backoff). The counter lives for the window after the last failure (and the block).
 * Atomic, so instances counting the same key at once cannot lose a failure; a fixed script run by SHA.
 */
const RECORD_FAILURE = `
local n = redis.call('INCR', KEYS[1])
local free = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if n <= free then
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local ms = math.floor(math.min(1000 * 2 ^ (n - free - 1), tonumber(ARGV[3])))
redis.call('SET', KEYS[2], '1', 'PX', ms)
redis.call('PEXPIRE', KEYS[1], window + ms)
return ms`;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext> {
    /** RECORD_FAILURE: the block in ms this failure started (0 within the free budget). */
    failureBackoffRecord(
      countKey: string,
      blockKey: string,
      free: number,
      windowMs: number,
      maxMs: number,
    ): Result<number, Context>;
  }
}

export interface FailureBackoffOptions {
  /** Shared across instances; without it (and while it fails) counters live in this process. */
  redis?: Redis;
  prefix: string;
  /** Failures allowed before the first block. */
  freeFailures: number;
  /** A key's failures are forgotten this long after its last failure. */
  windowSeconds: number;
  /** The longest block. */
  maxDelaySeconds: number;
}

export interface FailureBackoff {
  /** Milliseconds until the key may try again; 0 when it is not blocked. */
  blockedMs(key: string): Promise<number>;
  /** Counts a failure; returns the block it starts in ms (0 within the free budget). */
  recordFailure(key: string): Promise<number>;
  /** Forgets the key's failures (a success). */
  clear(key: string): Promise<void>;
}

/** Past this many keys the in-process fallback drops its oldest: memory stays bounded under a flood. */
const MAX_LOCAL_KEYS = 100_000;

/**
 * Failure counters with exponential backoff, keyed by whatever the caller throttles (a source address,
 * an account at a source). Never keyed by an id alone: that would let anyone lock its owner out.
 * Keys are hashed, so a long user-chosen name costs the same as a short one in Redis.
 */
export function createFailureBackoff(options: FailureBackoffOptions): FailureBackoff {
  const { redis } = options;
  const windowMs = options.windowSeconds * 1000;
  const maxMs = options.maxDelaySeconds * 1000;
  redis?.defineCommand('failureBackoffRecord', { numberOfKeys: 2, lua: RECORD_FAILURE });
  const local = new Map<string, { failures: number; blockedUntil: number; forgetAt: number }>();
  const digest = (key: string) => createHash('sha256').update(key).digest('base64url');
  const countKey = (key: string) => `${options.prefix}:n:${digest(key)}`;
  const blockKey = (key: string) => `${options.prefix}:b:${digest(key)}`;

  const localEntry = (key: string) => {
    const entry = local.get(key);
    if (entry && entry.forgetAt <= Date.now()) local.delete(key);
    return local.get(key);
  };
  const localRecord = (key: string): number => {
    const now = Date.now();
    const entry = localEntry(key) ?? { failures: 0, blockedUntil: 0, forgetAt: 0 };
    entry.failures += 1;
    const over = entry.failures - options.freeFailures;
    const ms = over > 0 ? Math.floor(Math.min(1000 * 2 ** (over - 1), maxMs)) : 0;
    if (ms > 0) entry.blockedUntil = now + ms;
    entry.forgetAt = now + windowMs + ms;
    local.delete(key);
    local.set(key, entry);
    if (local.size > MAX_LOCAL_KEYS) local.delete(local.keys().next().value as string);
    return ms;
  };

  return {
    async blockedMs(key) {
      if (redis) {
        try {
          const ttl = await redis.pttl(blockKey(key));
          return ttl > 0 ? ttl : 0;
        } catch {
          // Redis down: this instance's own counts stand in (neither everyone nor no one is blocked).
        }
      }
      return Math.max(0, (localEntry(key)?.blockedUntil ?? 0) - Date.now());
    },
    async recordFailure(key) {
      if (redis) {
        try {
          return await redis.failureBackoffRecord(
            countKey(key),
            blockKey(key),
            options.freeFailures,
            windowMs,
            maxMs,
          );
        } catch {
          // Counted in process instead, as in blockedMs.
        }
      }
      return localRecord(key);
    },
    async clear(key) {
      local.delete(key);
      if (redis) await redis.del(countKey(key), blockKey(key)).catch(() => undefined);
    },
  };
}
