import type Redis from 'ioredis';
import type { ClientContext, Result } from 'ioredis';
import type { IntrospectionResponse, Logger } from '@acme/common';
import type { IntrospectionCache } from '../domain/introspection/introspection-cache';
import { LocalIntrospectionCache } from './local-introspection-cache';

export const REVOCATION_CHANNEL = 'auth:introspection:revoked';
const PREFIX = 'auth:ti:';
const TOMBSTONE = '__revoked';

/**
 * Writes a result unless the hash carries a revocation tombstone: atomic, so no stale write can land
 * after. A fixed Lua script that Redis runs (defineCommand: sent once per connection, then called by
 * its SHA1 digest), never JavaScript built from strings.
 */
const SET_UNLESS_REVOKED = `
if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TTL', KEYS[1]) < 0 or redis.call('TTL', KEYS[1]) > tonumber(ARGV[4]) then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
end
return 1`;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext> {
    /** SET_UNLESS_REVOKED: 1 when written, 0 when the hash carries a tombstone. */
    introspectionSetUnlessRevoked(
      key: string,
      field: string,
      value: string,
      tombstone: string,
      ttlSeconds: number,
    ): Result<number, Context>;
  }
}

export interface CacheOptions {
  redis?: Redis;
  subscriber?: Redis;
  logger: Logger;
  /** Lifetime of the in-process layer; 0 turns it off when Redis is configured. */
  localMs: number;
  tombstoneSeconds: number;
}

/**
 * Redis (shared, keyed by token hash with one field per resource server) in front of Postgres, with an
 * optional short in-process layer. Any Redis failure is a miss: answers then come from Postgres, so a
 * Redis outage costs speed, never correctness (issue 4). While the subscriber is down the in-process
 * layer is off, because revocations from other instances could not reach it.
 */
export function createIntrospectionCache(options: CacheOptions): IntrospectionCache {
  const { redis, subscriber, logger } = options;
  const local = new LocalIntrospectionCache(100_000, options.tombstoneSeconds * 1000);
  let localEnabled = !redis || options.localMs > 0;
  let dirty = false;
  let lastWarn = 0;
  const warn = (what: string, error: unknown) => {
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    logger.warn('introspection cache degraded: redis unavailable', { what, error: String(error) });
  };
  redis?.defineCommand('introspectionSetUnlessRevoked', { numberOfKeys: 1, lua: SET_UNLESS_REVOKED });
  const localTtlMs = (ttlSeconds: number) =>
    redis ? Math.min(options.localMs, ttlSeconds * 1000) : ttlSeconds * 1000;

  if (redis && subscriber) {
    localEnabled = false;
    subscriber.on('message', (_channel: string, message: string) => local.invalidate(message.split(',')));
    // The in-process layer serves only while invalidations can arrive: from each (re)subscription on.
    const subscribe = () =>
      subscriber.subscribe(REVOCATION_CHANNEL).then(
        () => (localEnabled = options.localMs > 0),
        (error: unknown) => warn('subscribe', error),
      );
    subscriber.on('ready', subscribe);
    subscriber.on('close', () => {
      localEnabled = false;
      local.clear();
    });
    void subscribe();
    redis.on('ready', healIfDirty);
  }

  /** Revocations that could not clear Redis: drop the whole namespace once Redis answers again. */
  let flushing = false;
  function healIfDirty(): void {
    if (!redis || !dirty || flushing || redis.status !== 'ready') return;
    flushing = true;
    flush().then(
      () => {
        dirty = false;
        flushing = false;
        logger.info('introspection cache flushed after a failed invalidation');
      },
      (error: unknown) => {
        flushing = false;
        warn('flush', error);
      },
    );
  }

  async function flush(): Promise<void> {
    if (!redis) return;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  return {
    async get(hash, rsId) {
      const key = hash.toString('base64url');
      if (localEnabled) {
        const hit = local.get(key, rsId);
        if (hit) return hit;
      }
      // dirty: a revocation could not clear Redis; its entries are not trusted until the flush is done.
      if (dirty) healIfDirty();
      if (!redis || dirty) return undefined;
      try {
        const [value, tombstone] = await redis.hmget(PREFIX + key, rsId, TOMBSTONE);
        if (tombstone) return { active: false };
        if (!value) return undefined;
        const result = JSON.parse(value) as IntrospectionResponse;
        if (localEnabled) {
          // Never past the token's own expiry (the product spec: cache time must not exceed exp).
          const untilExp = result.active && result.exp ? result.exp * 1000 - Date.now() : options.localMs;
          local.set(key, rsId, result, Math.min(options.localMs, untilExp));
        }
        return result;
      } catch (error) {
        warn('get', error);
        return undefined;
      }
    },
    async set(hash, rsId, value, ttlSeconds) {
      if (ttlSeconds <= 0) return;
      const key = hash.toString('base64url');
      if (localEnabled) local.set(key, rsId, value, localTtlMs(ttlSeconds));
      if (!redis || dirty) return;
      try {
        await redis.introspectionSetUnlessRevoked(
          PREFIX + key,
          rsId,
          JSON.stringify(value),
          TOMBSTONE,
          ttlSeconds,
        );
      } catch (error) {
        warn('set', error);
      }
    },
    async invalidate(hashes) {
      if (hashes.length === 0) return;
      const keys = hashes.map((h) => h.toString('base64url'));
      local.invalidate(keys);
      if (!redis) return;
      try {
        const pipeline = redis.multi();
        for (const key of keys) {
          pipeline.del(PREFIX + key);
          pipeline.hset(PREFIX + key, TOMBSTONE, '1');
          pipeline.expire(PREFIX + key, options.tombstoneSeconds);
        }
        await pipeline.exec();
        await redis.publish(REVOCATION_CHANNEL, keys.join(','));
      } catch (error) {
        dirty = true;
        warn('invalidate', error);
      }
    },
  };
}
