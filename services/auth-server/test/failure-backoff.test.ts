import { Redis } from 'ioredis';
import { testRedisUrl, uniqueId } from '@acme/testkit';
import { createFailureBackoff } from '../src/storage/failure-backoff.store';

describe('failure backoff on Redis, shared by two instances', () => {
  const connections: Redis[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit()));
  });
  const instance = (prefix: string) => {
    const redis = new Redis(testRedisUrl());
    connections.push(redis);
    return createFailureBackoff({ redis, prefix, freeFailures: 3, windowSeconds: 60, maxDelaySeconds: 5 });
  };

  it('counts failures from both instances, then doubles the block up to the cap; a success clears it', async () => {
    const prefix = uniqueId('test:backoff:');
    const [a, b] = [instance(prefix), instance(prefix)];
    const blocks = [];
    for (let i = 0; i < 7; i += 1) blocks.push(await (i % 2 ? b : a).recordFailure('203.0.113.9'));
    expect(blocks).toEqual([0, 0, 0, 1000, 2000, 4000, 5000]);
    expect(await b.blockedMs('203.0.113.9')).toBeGreaterThan(4000);
    expect(await a.blockedMs('198.51.100.1')).toBe(0);
    await a.clear('203.0.113.9');
    expect(await b.blockedMs('203.0.113.9')).toBe(0);
    expect(await b.recordFailure('203.0.113.9')).toBe(0);
  });

  it('counts in process while Redis is unreachable, blocking neither everyone nor no one', async () => {
    const redis = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    redis.on('error', () => undefined);
    const down = createFailureBackoff({
      redis,
      prefix: 'x',
      freeFailures: 1,
      windowSeconds: 60,
      maxDelaySeconds: 5,
    });
    expect(await down.recordFailure('k')).toBe(0);
    expect(await down.recordFailure('k')).toBe(1000);
    expect(await down.blockedMs('k')).toBeGreaterThan(0);
    expect(await down.blockedMs('other')).toBe(0);
    redis.disconnect();
  });
});
