import { createLogger } from '@acme/common';
import { startLocalRedis, type LocalRedis } from '@acme/testkit';
import type { Socket } from 'node:net';
import Redis from 'ioredis';
import { connectRedis } from '../src/storage/connect-redis';
import { createIntrospectionCache, REVOCATION_CHANNEL } from '../src/storage/introspection-cache.store';
import { createRevocationBus } from '../src/storage/revocation-bus.store';

describe('the subscriber connection across Redis restarts', () => {
  let redis: LocalRedis;
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  beforeAll(async () => {
    redis = await startLocalRedis();
    process.on('unhandledRejection', record);
  });
  afterAll(async () => {
    process.off('unhandledRejection', record);
    await redis.stop().catch(() => undefined);
  });

  it('leaves no unhandled rejection when the connection drops while it subscribes again, and subscribes once it is back', async () => {
    const logger = createLogger({ service: 'test', level: 'error' });
    const { redis: client, subscriber } = connectRedis(redis.url, logger);
    try {
      createIntrospectionCache({ redis: client, subscriber, logger, localMs: 1000, tombstoneSeconds: 60 });
      const bus = createRevocationBus({ redis: client, subscriber, logger });
      const events: string[] = [];
      const unsubscribe = bus.subscribe((event) => events.push(event.type));
      await new Promise((resolve) => subscriber.once('ready', resolve));
      const port = Number(new URL(redis.url).port);

      // Redis goes away and comes back; right after the subscriber is ready again (its SUBSCRIBE and
      // PSUBSCRIBE written, the replies not read yet) the connection drops, and the client reconnects.
      await redis.stop();
      const dropped = new Promise<void>((resolve) =>
        subscriber.once('ready', () =>
          setImmediate(() => {
            (subscriber as unknown as { stream: Socket }).stream.destroy();
            resolve();
          }),
        ),
      );
      redis = await startLocalRedis({ port });
      await dropped;
      const again = new Promise((resolve) => subscriber.once('ready', resolve));
      await again;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(unhandled.map(String)).toEqual([]);

      // Back for good: the subscriptions return, and local subscribers are told to resync.
      for (let i = 0; i < 50 && !events.includes('resync'); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events).toContain('resync');
      // Asked on a connection of the test's own (the service's main one may still be reconnecting).
      const check = new Redis(redis.url);
      try {
        expect(await check.pubsub('NUMSUB', REVOCATION_CHANNEL)).toEqual([REVOCATION_CHANNEL, 1]);
        expect(await check.pubsub('NUMPAT')).toBe(1);
      } finally {
        check.disconnect();
      }
      unsubscribe();
    } finally {
      client.disconnect();
      subscriber.disconnect();
    }
  }, 30_000);
});
