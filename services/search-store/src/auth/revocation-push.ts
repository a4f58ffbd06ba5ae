import {
  createIntrospectionClient,
  subscribeRevocations,
  type IntrospectionClient,
  type Logger,
  type RevocationSubscription,
} from '@acme/common';
import type { SearchConfig } from '../config';

/**
 * search-store's introspection cache and, with REVOCATION_STREAM=on, its subscription to auth-server's
 * GET /revocations/stream (issue 7), so a revoked token's cached answer goes at once instead of living
 * until INTROSPECTION_CACHE_MAX_SECONDS. While the stream is down the cache bound still holds, so it is
 * logged and shown as a gauge, never a readiness failure.
 */
export function createIntrospectionWithPush(
  config: Pick<
    SearchConfig,
    | 'AUTH_SERVER_URL'
    | 'INTROSPECTION_CLIENT_ID'
    | 'INTROSPECTION_CLIENT_SECRET'
    | 'INTROSPECTION_CACHE_MAX_SECONDS'
    | 'AUTH_SERVER_TIMEOUT_MS'
    | 'REVOCATION_STREAM'
  >,
  logger: Logger,
): { introspection: IntrospectionClient; revocations?: RevocationSubscription } {
  const credentials = {
    authServerUrl: config.AUTH_SERVER_URL,
    clientId: config.INTROSPECTION_CLIENT_ID,
    clientSecret: config.INTROSPECTION_CLIENT_SECRET,
  };
  const introspection = createIntrospectionClient({
    ...credentials,
    cacheMaxSeconds: config.INTROSPECTION_CACHE_MAX_SECONDS,
    timeoutMs: config.AUTH_SERVER_TIMEOUT_MS,
  });
  if (config.REVOCATION_STREAM === 'off') return { introspection };
  const revocations = subscribeRevocations({
    ...credentials,
    client: introspection,
    onStateChange: (state) => {
      if (state.connected) logger.info('revocation stream connected; introspection cache cleared');
      else
        logger.warn('revocation stream disconnected; revocations reach us within the cache bound', {
          reason: state.reason,
          retry_in_ms: state.retryInMs,
        });
    },
  });
  return { introspection, revocations };
}
