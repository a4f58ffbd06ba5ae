import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Logger } from '@acme/common';
import {
  createLocalRevocationFeed,
  type RevocationEvent,
  type RevocationFeed,
} from '../domain/revocation/revocation-feed';

export const REVOCATION_EVENTS_CHANNEL = 'auth:revocations:events';

/**
 * Revocation events fanned out to every auth-server instance through Redis pub/sub, next to the
 * introspection cache's invalidation channel. The subscription is a pattern subscription (PSUBSCRIBE
 * of the exact channel name) on the shared subscriber connection: its messages arrive as 'pmessage',
 * so the introspection cache's 'message' listener never sees them, and no third connection is needed.
 *
 * An event reaches this instance's own subscribers at once, whatever Redis does; other instances get it
 * through Redis. While Redis is down, or this instance's subscription is, those pushes are lost (the
 * resource servers' cache bound still holds): when the subscription comes back, every local subscriber is
 * told to resync (it clears its cache), since events may have been missed meanwhile.
 */
export function createRevocationBus(options: {
  redis?: Redis;
  subscriber?: Redis;
  logger: Logger;
}): RevocationFeed {
  const { redis, subscriber, logger } = options;
  const local = createLocalRevocationFeed();
  if (!redis || !subscriber) return local;
  const origin = randomUUID();
  let lostSubscription = false;

  subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => {
    if (channel !== REVOCATION_EVENTS_CHANNEL) return;
    const parsed = parseMessage(message);
    if (!parsed || parsed.origin === origin) return; // our own events were delivered when published
    local.deliver({ type: 'revocation', event: parsed.event });
  });
  subscriber.on('close', () => (lostSubscription = true));
  // Subscribe on every (re)connection (connect-redis.ts: no autoResubscribe), and tell local subscribers
  // to resync once the subscription is back: events published while it was down never reach us.
  const subscribe = () =>
    subscriber.psubscribe(REVOCATION_EVENTS_CHANNEL).then(
      () => {
        if (!lostSubscription) return;
        lostSubscription = false;
        logger.warn('revocation fan-out resumed: subscribers told to resync');
        local.deliver({ type: 'resync' });
      },
      (error: unknown) => {
        logger.warn('revocation fan-out unavailable', { error: String(error) });
      },
    );
  subscriber.on('ready', subscribe);
  void subscribe();

  let lastWarn = 0;
  return {
    get subscribers() {
      return local.subscribers;
    },
    subscribe: local.subscribe,
    close: local.close,
    publish(event) {
      local.deliver({ type: 'revocation', event });
      redis.publish(REVOCATION_EVENTS_CHANNEL, JSON.stringify({ origin, event })).catch((error: unknown) => {
        if (Date.now() - lastWarn < 10_000) return;
        lastWarn = Date.now();
        logger.warn('revocation event not fanned out: redis unavailable', { error: String(error) });
      });
    },
  };
}

function parseMessage(message: string): { origin: string; event: RevocationEvent } | undefined {
  try {
    const value = JSON.parse(message) as { origin?: unknown; event?: Partial<RevocationEvent> };
    const event = value.event;
    if (typeof value.origin !== 'string' || !event || !Array.isArray(event.jti)) return undefined;
    if (!event.jti.every((j) => typeof j === 'string') || typeof event.reason !== 'string') return undefined;
    return {
      origin: value.origin,
      event: {
        jti: event.jti,
        reason: event.reason,
        ...(typeof event.sub === 'string' ? { sub: event.sub } : {}),
        ...(typeof event.client_id === 'string' ? { client_id: event.client_id } : {}),
      },
    };
  } catch {
    return undefined;
  }
}
