import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { introspectionResponseSchema, type IntrospectionResponse } from '../schemas/introspection.schema';
import { formatClientBasic } from './authorization-header';
import { IntrospectionError } from './introspection-error';

/**
 * The resource server's side of RFC 7662: POST the token to `${authServerUrl}/token_info` with our own
 * client credentials (Basic, RFC 7662 §2.1 → RFC 6749 §2.3.1) and cache the answer in process.
 *
 * Rules it enforces:
 * - RFC 7662 §4 and the product spec: a cached answer never outlives the token's `exp`; TTL is
 *   min(cacheMaxSeconds, exp − now). An inactive answer is cached only briefly (a token cannot become
 *   active again, but a brief TTL keeps memory for garbage tokens small).
 * - One request in flight per token: concurrent callers share it (single-flight).
 * - Fail closed: an unreachable server, a timeout, a 5xx, our credentials refused (401) or an answer that
 *   does not match the RFC 7662 schema throw IntrospectionError; errors are never cached.
 * - Cache keys are SHA-256 digests of the token, so a heap dump does not hold usable tokens as keys.
 * - Revocation push (issue 7): `dropRevoked` forgets the answers a revocation event names (by the `jti`
 *   the answers carry, or by `sub`/`client_id`) and `clear` forgets everything; an answer in flight when
 *   either happens is returned but not cached, and an active answer naming a jti revoked within the
 *   cache bound is answered inactive (an auth-server instance may not have dropped its own cache yet).
 */
export interface IntrospectionClientOptions {
  /** auth-server's base URL, without the trailing slash. */
  authServerUrl: string;
  clientId: string;
  clientSecret: string;
  /** Upper bound of the cache time for an active token; 0 disables the cache. */
  cacheMaxSeconds: number;
  /** Cache time for an inactive answer (bounded by cacheMaxSeconds too). Default 5. */
  inactiveCacheSeconds?: number;
  /** Most tokens kept. Default 10,000. */
  maxEntries?: number;
  /** Default 2,000 ms. */
  timeoutMs?: number;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now?: () => number;
  fetch?: typeof fetch;
}

/** What a revocation event names (auth-server's /revocations/stream). */
export interface RevokedTokens {
  /** The `jti` of each revoked access token, as introspection answers carry it. */
  jti?: readonly string[];
  /** With client_id: that user's tokens at that client; alone: every token of that user. */
  sub?: string;
  /** Alone: every token of that client. */
  client_id?: string;
}

export interface IntrospectionClient {
  introspect(token: string): Promise<IntrospectionResponse>;
  /** How many answers are cached (for tests and metrics). */
  readonly cachedCount: number;
  /** Forgets the cached answers a revocation names; returns how many. */
  dropRevoked(revoked: RevokedTokens): number;
  /** Forgets every cached answer (a revocation stream (re)connected: events may have been missed). */
  clear(): void;
}

interface CachedAnswer {
  response: IntrospectionResponse;
  expiresAtMs: number;
}

export function createIntrospectionClient(options: IntrospectionClientOptions): IntrospectionClient {
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  const endpoint = `${options.authServerUrl.replace(/\/+$/, '')}/token_info`;
  const authorization = formatClientBasic(options.clientId, options.clientSecret);
  const timeoutMs = options.timeoutMs ?? 2000;
  const cacheMaxMs = options.cacheMaxSeconds * 1000;
  const inactiveMs = Math.min((options.inactiveCacheSeconds ?? 5) * 1000, cacheMaxMs);
  const maxEntries = options.maxEntries ?? 10_000;
  /** jti → cache key, so an event drops an answer without scanning. */
  const byJti = new Map<string, string>();
  const cache = new LRUCache<string, CachedAnswer>({
    max: maxEntries,
    // lru-cache drops entries by its own clock too; ttlResolution 0 makes it read ours on every check.
    ttlAutopurge: false,
    ttlResolution: 0,
    perf: { now },
    dispose: (answer, key) => {
      const jti = answer.response.active ? answer.response.jti : undefined;
      if (jti !== undefined && byJti.get(jti) === key) byJti.delete(jti);
    },
  });
  /** One request per token; a revocation or clear forgets them, so later callers ask afresh. */
  const inFlight = new Map<string, { request: Promise<IntrospectionResponse>; startedIn: number }>();
  /** Revoked jti → until when (ms): answers naming them are inactive for the cache bound. */
  const revokedJti = new Map<string, number>();
  /** Bumped by every revocation and clear: an answer fetched across a bump is not cached. */
  let generation = 0;

  function isRevoked(response: IntrospectionResponse): boolean {
    if (!response.active || response.jti === undefined) return false;
    const until = revokedJti.get(response.jti);
    return until !== undefined && until > now();
  }

  function matches(response: IntrospectionResponse, revoked: RevokedTokens): boolean {
    if (!response.active || (revoked.sub === undefined && revoked.client_id === undefined)) return false;
    return (
      (revoked.sub === undefined || response.sub === revoked.sub) &&
      (revoked.client_id === undefined || response.client_id === revoked.client_id)
    );
  }

  function cacheTimeMs(response: IntrospectionResponse): number {
    if (!response.active) return inactiveMs;
    if (response.exp === undefined) return cacheMaxMs;
    return Math.min(cacheMaxMs, response.exp * 1000 - now());
  }

  async function callServer(token: string): Promise<IntrospectionResponse> {
    let response: Response;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      response = await doFetch(endpoint, {
        method: 'POST',
        headers: {
          authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token }).toString(),
        signal,
      });
    } catch {
      if (signal.aborted) {
        throw new IntrospectionError('timeout', `auth server did not answer within ${timeoutMs} ms`);
      }
      throw new IntrospectionError('unreachable', `auth server is unreachable at ${endpoint}`);
    }
    if (response.status !== 200) {
      await response.arrayBuffer().catch(() => undefined);
      throw statusError(response.status);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new IntrospectionError('malformed_response', 'auth server answered with invalid JSON', 200);
    }
    const parsed = introspectionResponseSchema.safeParse(body);
    if (!parsed.success) {
      throw new IntrospectionError(
        'malformed_response',
        'auth server answer is not an RFC 7662 response',
        200,
      );
    }
    return parsed.data;
  }

  async function introspectAndCache(key: string, token: string): Promise<IntrospectionResponse> {
    const startedIn = generation;
    try {
      const response = await callServer(token);
      if (isRevoked(response)) return { active: false };
      const ttl = cacheTimeMs(response);
      if (ttl > 0 && startedIn === generation) {
        cache.set(key, { response, expiresAtMs: now() + ttl }, { ttl });
        if (response.active && response.jti !== undefined) byJti.set(response.jti, key);
      }
      return response;
    } finally {
      // Only our own entry: a revocation may have replaced it with a newer request meanwhile.
      if (inFlight.get(key)?.startedIn === startedIn) inFlight.delete(key);
    }
  }

  return {
    async introspect(token: string): Promise<IntrospectionResponse> {
      const key = createHash('sha256').update(token).digest('base64url');
      const cached = cache.get(key);
      // Checked against our clock as well: the exp bound is the security property, not an optimisation.
      if (cached && cached.expiresAtMs > now()) return cached.response;
      const pending = inFlight.get(key);
      if (pending) return pending.request;
      const startedIn = generation;
      const request = introspectAndCache(key, token);
      inFlight.set(key, { request, startedIn });
      return request;
    },
    get cachedCount() {
      return cache.size;
    },
    dropRevoked(revoked) {
      generation += 1;
      inFlight.clear();
      let dropped = 0;
      const until = now() + Math.max(cacheMaxMs, 1000);
      for (const jti of revoked.jti ?? []) {
        revokedJti.set(jti, until);
        const key = byJti.get(jti);
        if (key !== undefined && cache.delete(key)) dropped += 1;
      }
      if (revoked.sub !== undefined || revoked.client_id !== undefined) {
        const keys = [...cache.entries()].filter(([, a]) => matches(a.response, revoked)).map(([k]) => k);
        for (const key of keys) if (cache.delete(key)) dropped += 1;
      }
      if (revokedJti.size > maxEntries) {
        const at = now();
        for (const [jti, expiry] of revokedJti) if (expiry <= at) revokedJti.delete(jti);
      }
      return dropped;
    },
    clear() {
      generation += 1;
      inFlight.clear();
      cache.clear();
      byJti.clear();
    },
  };
}

function statusError(status: number): IntrospectionError {
  if (status === 401) {
    return new IntrospectionError(
      'credentials_rejected',
      "auth server rejected this resource server's introspection credentials",
      status,
    );
  }
  if (status >= 500) return new IntrospectionError('server_error', `auth server answered ${status}`, status);
  return new IntrospectionError(
    'unexpected_status',
    `auth server answered ${status} to introspection`,
    status,
  );
}
