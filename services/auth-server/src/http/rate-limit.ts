import type Redis from 'ioredis';
import { OAuthError } from '@acme/common';
import { createFailureBackoff } from '../storage/failure-backoff.store';
import { failureSource } from './failure-source';

/** The longest a source waits after repeated failures; it only ever waits after failing itself. */
const MAX_DELAY_SECONDS = 300;

/**
 * Failed client and resource-server authentications, counted per source address (shared through Redis
 * when configured). Client and resource-server secrets carry 256 bits, so guessing is hopeless and
 * throttling only bounds abuse: the presented credentials are always checked first and correct ones
 * always pass, whatever the counters say. Failures are never counted against the id that was tried
 * (anyone could then lock its owner out), only against the address that failed: past `points` failures
 * in a minute it gets 429 with Retry-After, 1 s doubling up to 5 min.
 */
export function createFailureLimiter(options: { redis?: Redis; points: number; prefix: string }) {
  const backoff = createFailureBackoff({
    ...(options.redis ? { redis: options.redis } : {}),
    prefix: options.prefix,
    freeFailures: options.points,
    windowSeconds: 60,
    maxDelaySeconds: MAX_DELAY_SECONDS,
  });
  return {
    /** Counts a failure from this address; throws 429 once the address is past its budget. */
    async fail(address: string): Promise<void> {
      const ms = await backoff.recordFailure(failureSource(address));
      if (ms > 0)
        throw new OAuthError('too_many_requests', 'too many failed attempts from this address', {
          'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))),
        });
    },
  };
}
export type FailureLimiter = ReturnType<typeof createFailureLimiter>;
