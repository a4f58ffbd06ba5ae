import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { formatClientBasic, formatForwardedFor, RELAY_AUTHORIZATION_HEADER } from '@acme/common';

/**
 * `Authorization: Basic user:password` on search-store names a service account: an OAuth client registered
 * on auth-server. We exchange its credentials for an access token with the client_credentials grant
 * (RFC 6749 §4.4, client_secret_basic per §2.3.1) and keep the token until shortly before it expires, so a
 * Basic request costs a token request once per token lifetime, not once per request.
 * - Cache keys are an HMAC of the credentials under a key made at start-up: the map never holds a password,
 *   and its keys cannot be tested offline against guesses.
 * - One token request in flight per credentials (single-flight).
 * - A refusal (400/401 from /token, or 429: the end user's address failed too often) means bad credentials;
 *   it is remembered for a few seconds, so a client retrying bad credentials in a loop does not reach
 *   auth-server on every request. auth-server throttles failures by address: with `relay` we authenticate
 *   as a resource server and name the end user's address (RFC 7239 Forwarded), so their failures count
 *   against them, not against search-store (which every service account calls through). Anything else
 *   (network, timeout, 5xx, an answer that is not a token) means auth-server is unavailable: not cached.
 */
export type ServiceAccountFailure = 'rejected' | 'unavailable';

export class ServiceAccountError extends Error {
  constructor(
    readonly failure: ServiceAccountFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceAccountError';
  }
}

export interface ServiceAccountTokensOptions {
  authServerUrl: string;
  /** search-store's resource-server credentials, sent so auth-server believes the end user's address. */
  relay?: { clientId: string; clientSecret: string };
  timeoutMs?: number;
  maxEntries?: number;
  /** How long refused credentials are answered from memory. Default 5,000 ms. */
  rejectedCacheMs?: number;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now?: () => number;
  fetch?: typeof fetch;
}

export interface ServiceAccountTokens {
  /** `endUser`: the address the request came from, which auth-server counts a failure against. */
  tokenFor(username: string, password: string, endUser?: string): Promise<string>;
  /** Drops a cached token (introspection said it is no longer active). */
  forget(username: string, password: string): void;
}

/** RFC 6749 §5.1. */
const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((type) => type.toLowerCase() === 'bearer', 'token_type must be Bearer'),
  expires_in: z.number().positive().optional(),
});

/** Without expires_in we cannot know the lifetime; keep such a token for a minute only. */
const UNKNOWN_LIFETIME_MS = 60_000;

export function createServiceAccountTokens(options: ServiceAccountTokensOptions): ServiceAccountTokens {
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  const endpoint = `${options.authServerUrl.replace(/\/+$/, '')}/token`;
  const timeoutMs = options.timeoutMs ?? 2000;
  const hmacKey = randomBytes(32);
  const relay = options.relay && formatClientBasic(options.relay.clientId, options.relay.clientSecret);
  const maxEntries = options.maxEntries ?? 1000;
  // Insertion-ordered Map as a bounded cache: service accounts are few, so dropping the oldest is enough.
  const cache = new Map<string, { token: string | undefined; refreshAtMs: number }>();
  const rejectedCacheMs = options.rejectedCacheMs ?? 5000;
  const remember = (key: string, token: string | undefined, untilMs: number) => {
    cache.delete(key);
    cache.set(key, { token, refreshAtMs: untilMs });
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
  };
  const inFlight = new Map<string, Promise<string>>();
  const keyOf = (username: string, password: string) =>
    createHmac('sha256', hmacKey)
      .update(JSON.stringify([username, password]))
      .digest('base64url');

  async function requestToken(
    username: string,
    password: string,
    endUser: string | undefined,
  ): Promise<{ token: string; lifetimeMs: number }> {
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await doFetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: formatClientBasic(username, password),
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          ...(relay && endUser
            ? { [RELAY_AUTHORIZATION_HEADER]: relay, forwarded: formatForwardedFor(endUser) }
            : {}),
        },
        body: 'grant_type=client_credentials',
        signal,
      });
    } catch {
      throw new ServiceAccountError(
        'unavailable',
        signal.aborted ? `auth server did not answer within ${timeoutMs} ms` : 'auth server is unreachable',
      );
    }
    if (response.status === 400 || response.status === 401 || response.status === 429) {
      await response.arrayBuffer().catch(() => undefined);
      throw new ServiceAccountError('rejected', `auth server refused the credentials (${response.status})`);
    }
    if (response.status !== 200) {
      await response.arrayBuffer().catch(() => undefined);
      throw new ServiceAccountError(
        'unavailable',
        `auth server answered ${response.status} to the token request`,
      );
    }
    const parsed = tokenResponseSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success)
      throw new ServiceAccountError('unavailable', 'auth server answered without a bearer token');
    const lifetimeMs =
      parsed.data.expires_in === undefined ? UNKNOWN_LIFETIME_MS : parsed.data.expires_in * 1000;
    return { token: parsed.data.access_token, lifetimeMs };
  }

  async function fetchAndCache(
    key: string,
    username: string,
    password: string,
    endUser: string | undefined,
  ): Promise<string> {
    try {
      const { token, lifetimeMs } = await requestToken(username, password, endUser);
      // Refresh a little before expiry (a tenth of the lifetime, at most 30 s) so a request never
      // carries a token that expires on its way to auth-server.
      const margin = Math.min(30_000, lifetimeMs / 10);
      remember(key, token, now() + lifetimeMs - margin);
      return token;
    } catch (error) {
      if (error instanceof ServiceAccountError && error.failure === 'rejected') {
        remember(key, undefined, now() + rejectedCacheMs);
      }
      throw error;
    } finally {
      inFlight.delete(key);
    }
  }

  return {
    async tokenFor(username, password, endUser) {
      const key = keyOf(username, password);
      const cached = cache.get(key);
      if (cached && cached.refreshAtMs > now()) {
        if (cached.token === undefined) {
          throw new ServiceAccountError('rejected', 'auth server refused these credentials moments ago');
        }
        return cached.token;
      }
      const pending = inFlight.get(key);
      if (pending) return pending;
      const request = fetchAndCache(key, username, password, endUser);
      inFlight.set(key, request);
      return request;
    },
    forget(username, password) {
      cache.delete(keyOf(username, password));
    },
  };
}
