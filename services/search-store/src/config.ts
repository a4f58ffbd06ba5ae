import { z } from 'zod';
import { envInt, envLogLevel, envPort, envSecret, envUrl } from '@acme/common';

/** search-store's environment, read once in main.ts. */
export const searchConfigSchema = z.object({
  PORT: envPort.default(9200),
  HOST: z.string().default('0.0.0.0'),
  /**
   * On SIGTERM/SIGINT: how long in-flight requests may take to finish before their connections are cut
   * and the process exits 1 (0 after a clean drain). Keep it below the orchestrator's grace period.
   */
  SHUTDOWN_TIMEOUT_MS: envInt(0, 600_000).default(25_000),
  DATABASE_URL: envUrl,
  /**
   * Postgres streaming replicas (comma-separated URLs) that serve searches and counts; writes, GETs,
   * scroll and PIT stay on DATABASE_URL (storage/replica-set.ts). Empty: the primary serves everything.
   */
  DATABASE_REPLICA_URLS: z
    // A list too, so a parsed config parses again (tests derive one instance's config from another's).
    .union([z.string(), z.array(z.string())])
    .default('')
    .transform((value) =>
      (Array.isArray(value) ? value : value.split(',')).map((url) => url.trim()).filter(Boolean),
    )
    .pipe(z.array(envUrl).max(16)),
  /**
   * How far behind the primary a replica may be and still serve searches (ms); also the longest a
   * `refresh=true|wait_for` write (or `_refresh`) waits for a replica to replay it.
   */
  REPLICA_MAX_LAG_MS: envInt(50, 600_000).default(1000),
  /** How often the primary commits a heartbeat when replicas are set, so idle replicas do not look stale. */
  REPLICA_HEARTBEAT_MS: envInt(10, 60_000).default(100),
  /**
   * Postgres statement_timeout of every connection (ms): a statement running longer is cancelled and
   * its request fails, so no request holds a backend for minutes.
   */
  PG_STATEMENT_TIMEOUT_MS: envInt(100, 3_600_000).default(30_000),
  LOG_LEVEL: envLogLevel,
  /** auth-server's base URL; introspection goes to `${AUTH_SERVER_URL}/token_info`. */
  AUTH_SERVER_URL: envUrl.transform((value) => value.replace(/\/+$/, '')),
  /** search-store's own resource-server credentials for /token_info (RFC 7662 §2.1). */
  INTROSPECTION_CLIENT_ID: z.string().min(1),
  INTROSPECTION_CLIENT_SECRET: z.string().min(16),
  /** Upper bound for caching an introspection result; never past the token's exp. */
  INTROSPECTION_CACHE_MAX_SECONDS: envInt(0, 3600).default(30),
  /**
   * Subscribe to auth-server's GET /revocations/stream so a revoked token's cached introspection answer is
   * dropped at once (issue 7); off: revocation takes effect within INTROSPECTION_CACHE_MAX_SECONDS.
   */
  REVOCATION_STREAM: z.enum(['on', 'off']).default('on'),
  /**
   * Redis for state every instance must share: used DPoP proof jtis (RFC 9449 §11.1), so a proof replayed
   * to another instance is refused. Unset: kept in process (one instance).
   */
  REDIS_URL: envUrl.optional(),
  /**
   * RFC 9449 §9 resource-server nonces: set, every DPoP proof must carry this service's current nonce (an
   * HMAC of the time window under this secret, so every instance sharing it issues and takes the same);
   * without one the answer is 401 `use_dpop_nonce` with a `DPoP-Nonce` header. Unset: no nonces.
   */
  DPOP_NONCE_SECRET: envSecret.optional(),
  /** One nonce window (s): a nonce is accepted in its window and the next. */
  DPOP_NONCE_WINDOW_SECONDS: envInt(10, 3600).default(300),
  /** Deadline for each call to auth-server (introspection, client_credentials); past it we answer 503. */
  AUTH_SERVER_TIMEOUT_MS: envInt(50, 60_000).default(2000),
  /** Largest request body accepted (Elasticsearch's http.max_content_length is 100mb). */
  MAX_REQUEST_BYTES: envInt(1024, 2 ** 31 - 1).default(100 * 1024 * 1024),
  /**
   * Memory for decoded postings kept between searches (search/fast-match/postings-cache.ts), per
   * instance; every answer from it is checked against Postgres first. 0 turns it off.
   */
  SEARCH_POSTINGS_CACHE_MB: envInt(0, 65_536).default(64),
  /**
   * Memory for the term dictionaries kept between bulks (index/term-dictionary-cache.ts), per
   * instance; each is dropped when another transaction changed its index. 0 turns them off.
   */
  SEARCH_TERM_CACHE_MB: envInt(0, 65_536).default(64),
  /**
   * Most connections per instance that hold the snapshots of open scroll and PIT contexts
   * (search/contexts/snapshot-holders.ts); each holds many contexts, a new one every 30 s at most.
   */
  SEARCH_CONTEXT_HOLDERS: envInt(1, 1000).default(8),
  /** The cluster name reported by GET /. */
  CLUSTER_NAME: z.string().default('search-store'),
  NODE_NAME: z.string().default('node-1'),
  /** Directory whose file system /_cat/nodes reports disk figures for (the Postgres data dir when local). */
  DATA_PATH: z.string().default('/'),
});

export type SearchConfig = z.infer<typeof searchConfigSchema>;
