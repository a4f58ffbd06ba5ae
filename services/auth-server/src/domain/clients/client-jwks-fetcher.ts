import type { Logger } from '@acme/common';
import { checkClientJwks, clientJwksSchema, type ClientJwks } from './client-jwks';

/** A client's `jwks_uri` keys (RFC 7591 §2), fetched and cached. */
export interface ClientJwksFetcher {
  /**
   * The set at `uri`: cached for `cacheSeconds`; `refresh` (a `kid` not in the cached set, as after a
   * key rotation) fetches again, at most once per `refetchSeconds`. undefined: unavailable.
   */
  get(uri: string, options?: { refresh?: boolean }): Promise<ClientJwks | undefined>;
}

/** A JWK set of up to 10 public keys is a few KiB; anything past this is not one. */
export const MAX_JWKS_BYTES = 64 * 1024;
/** Past this many URIs the cache drops its oldest (one per registered client at most). */
const MAX_CACHED = 1000;

/**
 * Fetches with a timeout, no redirects and a size cap; an answer that is not a valid public JWK set
 * (the registration rules, client-jwks.ts) counts as unavailable. Concurrent lookups of one URI share
 * one fetch. A failed refresh keeps the cached set (a key that was good stays good for its cache life).
 */
export function createClientJwksFetcher(options: {
  timeoutMs: number;
  cacheSeconds: number;
  refetchSeconds: number;
  logger: Logger;
}): ClientJwksFetcher {
  const cache = new Map<string, { jwks: ClientJwks; fetchedAt: number }>();
  const inFlight = new Map<string, Promise<ClientJwks | undefined>>();
  const lastAttempt = new Map<string, number>();

  const fetchSet = async (uri: string): Promise<ClientJwks | undefined> => {
    lastAttempt.set(uri, Date.now());
    if (lastAttempt.size > MAX_CACHED) lastAttempt.delete(lastAttempt.keys().next().value as string);
    try {
      const response = await fetch(uri, {
        redirect: 'error',
        headers: { accept: 'application/jwk-set+json, application/json' },
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const jwks = clientJwksSchema.parse(JSON.parse(await readCapped(response)));
      checkClientJwks(jwks);
      cache.delete(uri);
      cache.set(uri, { jwks, fetchedAt: Date.now() });
      if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
      return jwks;
    } catch (error) {
      options.logger.warn('client jwks_uri fetch failed', { uri, error: (error as Error).message });
      return cache.get(uri)?.jwks;
    }
  };

  return {
    get(uri, { refresh = false } = {}) {
      const now = Date.now();
      const cached = cache.get(uri);
      const fresh = cached !== undefined && now - cached.fetchedAt < options.cacheSeconds * 1000;
      if (fresh && !refresh) return Promise.resolve(cached.jwks);
      const pending = inFlight.get(uri);
      if (pending) return pending;
      // At most one fetch per URI per refetch interval, however many assertions name unknown kids.
      if (now - (lastAttempt.get(uri) ?? -Infinity) < options.refetchSeconds * 1000)
        return Promise.resolve(cached?.jwks);
      const started = fetchSet(uri).finally(() => inFlight.delete(uri));
      inFlight.set(uri, started);
      return started;
    },
  };
}

/** The body as text, given up past MAX_JWKS_BYTES (a declared or an actual length). */
async function readCapped(response: Response): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > MAX_JWKS_BYTES) throw new Error('too large');
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_JWKS_BYTES) {
      await reader.cancel();
      throw new Error('too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
