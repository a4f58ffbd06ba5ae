import { createSharedDpopReplayCache, type RedisSetNx } from '../../src';

/**
 * The shared DPoP replay cache's contract with Redis (RFC 9449 §11.1): one `SET key 1 EX ttl NX` per
 * claim under its prefix, a replay when Redis says the key exists, and this process's cache while Redis
 * fails. Real Redis across instances: search-store's test/auth/dpop-shared-replay.test.ts.
 */
describe('createSharedDpopReplayCache', () => {
  it('claims with SET NX EX under its prefix; a key Redis already holds is a replay', async () => {
    const calls: unknown[][] = [];
    const held = new Set<string>();
    const redis: RedisSetNx = {
      set(key, value, ex, seconds, nx) {
        calls.push([key, value, ex, seconds, nx]);
        if (held.has(key)) return Promise.resolve(null);
        held.add(key);
        return Promise.resolve('OK');
      },
    };
    const cache = createSharedDpopReplayCache(redis, { prefix: 'svc:dpop:jti' });
    expect(await cache.claim('k1', 70)).toBe(true);
    expect(await cache.claim('k1', 70)).toBe(false);
    expect(calls[0]).toEqual(['svc:dpop:jti:k1', '1', 'EX', 70, 'NX']);
  });

  it("falls back to this process's cache while Redis fails, so a replay here is still refused", async () => {
    const redis: RedisSetNx = { set: () => Promise.reject(new Error('Connection is closed.')) };
    const cache = createSharedDpopReplayCache(redis, { prefix: 'svc' });
    expect(await cache.claim('k2', 70)).toBe(true);
    expect(await cache.claim('k2', 70)).toBe(false);
    expect(await cache.claim('k3', 70)).toBe(true);
  });
});
