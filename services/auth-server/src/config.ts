import { isIP } from 'node:net';
import { z } from 'zod';
import { envBool, envInt, envList, envLogLevel, envPort, envSecret, envUrl } from '@acme/common';
import { bootstrapSecretSchema } from './domain/admin/bootstrap-secret-schema';

/**
 * auth-server's environment. Read once in main.ts; everything else receives the parsed value.
 * Secrets have no defaults: a missing one stops start-up with its name.
 */
export const authConfigSchema = z.object({
  PORT: envPort.default(4000),
  HOST: z.string().default('0.0.0.0'),
  /**
   * On SIGTERM/SIGINT: how long in-flight requests may take to finish before their connections are cut
   * and the process exits 1 (0 after a clean drain). Keep it below the orchestrator's grace period.
   */
  SHUTDOWN_TIMEOUT_MS: envInt(0, 600_000).default(25_000),
  /** The issuer identifier (OIDC Core §2, RFC 8414): the public base URL, no trailing slash. */
  ISSUER: envUrl.transform((value) => value.replace(/\/+$/, '')),
  /** The product name in the pages' header and titles; the issuer's host when unset. */
  UI_BRAND_NAME: z.string().min(1).max(80).optional(),
  /**
   * An operator stylesheet linked after the built-in one (custom properties and rules, README
   * "Theming the pages"); read once at start-up, at most 256 KB.
   */
  UI_THEME_CSS_FILE: z.string().min(1).optional(),
  /**
   * Origins (comma-separated, https, no path) a client's registered logo_uri may come from; a logo_uri
   * elsewhere is not shown, and a page showing one allows exactly that origin in its CSP img-src.
   */
  UI_LOGO_ORIGINS: envList
    .refine(
      (origins) => origins.every(isHttpsOrigin),
      'each entry must be an https origin such as https://cdn.example.com (no path, no trailing slash)',
    )
    .default([]),
  DATABASE_URL: envUrl,
  /**
   * Postgres statement_timeout of every connection (ms): a statement running longer is cancelled and
   * its request fails, so no request holds a backend for minutes.
   */
  PG_STATEMENT_TIMEOUT_MS: envInt(100, 3_600_000).default(30_000),
  /** Unset: an in-process cache (one instance only). */
  REDIS_URL: envUrl.optional(),
  LOG_LEVEL: envLogLevel,
  /** Key for HS256 access tokens, for the keyed hash of secrets and tokens (pepper) and for CSRF/session MACs. */
  TOKEN_SIGNING_SECRET: envSecret,
  /** Admin API credential (Bearer). */
  ADMIN_TOKEN: envSecret,
  AUTH_CODE_TTL_SECONDS: envInt(180, 300).default(300),
  /** RFC 9126 §2.2 expires_in: how long a pushed request waits for its first /authorize (short, §7.3). */
  PAR_TTL_SECONDS: envInt(10, 600).default(60),
  /** RFC 8628 §3.2 expires_in: how long a device's user code can be entered and its device code polled. */
  DEVICE_CODE_TTL_SECONDS: envInt(60, 1800).default(600),
  /** RFC 8628 §3.2 interval: the least time between two polls of a device (§3.5: +5 s at each slow_down). */
  DEVICE_POLL_INTERVAL_SECONDS: envInt(1, 60).default(5),
  INTROSPECTION_CACHE_MAX_SECONDS: envInt(0, 3600).default(60),
  TRUST_PROXY: envBool.default(false),
  /** Browser sign-in session lifetime (absolute, from login). */
  SESSION_TTL_SECONDS: envInt(300, 30 * 24 * 3600).default(8 * 3600),
  /** Admin console session: ends after this long without a request (idle) … */
  ADMIN_CONSOLE_IDLE_SECONDS: envInt(60, 4 * 3600).default(900),
  /** … and this long after sign-in whatever happens (absolute); both shorter than a page session's. */
  ADMIN_CONSOLE_TTL_SECONDS: envInt(300, 24 * 3600).default(2 * 3600),
  /** true: an admin without a second factor (TOTP or passkey) is refused at the console's sign-in. */
  ADMIN_CONSOLE_REQUIRE_MFA: envBool.default(false),
  /** Failed logins allowed per account and per client IP within the window before 429. */
  LOGIN_MAX_FAILURES_PER_ACCOUNT: envInt(1, 1000).default(5),
  LOGIN_MAX_FAILURES_PER_IP: envInt(1, 100000).default(50),
  LOGIN_FAILURE_WINDOW_SECONDS: envInt(10, 86400).default(900),
  /** In-process introspection layer in front of Redis (ms); pub/sub drops revoked entries on every instance. */
  INTROSPECTION_LOCAL_CACHE_MS: envInt(0, 60_000).default(1000),
  /** Comma-separated CIDRs allowed to call /token_info; unset: any address (Basic is always required). */
  INTROSPECTION_ALLOW_CIDRS: envList
    .refine((cidrs) => cidrs.every(isCidr), 'each entry must be an IPv4 or IPv6 CIDR such as 10.0.0.0/8')
    .optional(),
  /** Failed client/resource-server authentications per IP per minute before 429. */
  AUTH_FAILURES_PER_MINUTE: envInt(1, 10_000).default(30),
  /**
   * RFC 9700 §4.14.2: 0 (as Hydra, Okta and Auth0 default) makes any second use of a rotated refresh token
   * a reuse that revokes the family. An opt-in window answers retries with the first rotation's response,
   * which then also goes to whoever else holds the old token within the window.
   */
  REFRESH_REUSE_GRACE_SECONDS: envInt(0, 300).default(0),
  ID_TOKEN_TTL_SECONDS: envInt(60, 86_400).default(3600),
  /** Comment line sent this often on GET /revocations/stream, so idle streams stay open and dead ones show. */
  REVOCATION_STREAM_HEARTBEAT_SECONDS: envInt(1, 300).default(15),
  /** OIDC Back-Channel Logout: each POST of a logout token is abandoned (and retried) after this long. */
  BACKCHANNEL_LOGOUT_TIMEOUT_MS: envInt(100, 60_000).default(5000),
  /** Attempts per back-channel logout delivery before it is dropped (and logged as failed). */
  BACKCHANNEL_LOGOUT_MAX_ATTEMPTS: envInt(1, 20).default(6),
  /** Wait after a failed delivery, doubled per further failure (capped at 5 min). */
  BACKCHANNEL_LOGOUT_RETRY_BASE_MS: envInt(10, 600_000).default(5000),
  /** private_key_jwt clients' jwks_uri (RFC 7591 §2): each fetch is abandoned after this long. */
  CLIENT_JWKS_FETCH_TIMEOUT_MS: envInt(100, 30_000).default(3000),
  /** How long a fetched client JWK set is used before it is fetched again. */
  CLIENT_JWKS_CACHE_SECONDS: envInt(0, 86_400).default(300),
  /** An assertion naming a kid not in the cached set fetches again, at most once per this many seconds. */
  CLIENT_JWKS_REFETCH_SECONDS: envInt(0, 3600).default(10),
  /** RFC 9449 §11.1: a DPoP proof is accepted this long after its `iat`, and its `jti` remembered as long. */
  DPOP_PROOF_MAX_AGE_SECONDS: envInt(5, 600).default(60),
  /** RFC 9449 §8: /token requires its own nonce in every DPoP proof (`use_dpop_nonce` + `DPoP-Nonce`). */
  DPOP_NONCE_REQUIRED: envBool.default(false),
  /** One nonce window: a nonce (an HMAC of the window's number, the same on every instance) lives 1–2 of them. */
  DPOP_NONCE_WINDOW_SECONDS: envInt(10, 3600).default(300),
  /** RFC 7591/7592 dynamic client registration at /register (with an admin-issued initial access token). */
  DYNAMIC_REGISTRATION_ENABLED: envBool.default(false),
  /** Set: search-store's resource server is registered (or its secret rotated) from it at start. */
  BOOTSTRAP_SEARCH_STORE_SECRET: bootstrapSecretSchema.optional(),
});

function isCidr(value: string): boolean {
  const [address = '', bits, extra] = value.split('/');
  const version = isIP(address);
  const max = version === 6 ? 128 : 32;
  return (
    version !== 0 &&
    extra === undefined &&
    (bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= max))
  );
}

export type AuthConfig = z.infer<typeof authConfigSchema>;

/** An https origin exactly as URL#origin writes it, its host plain letters, digits, dots and hyphens. */
function isHttpsOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' && url.origin === value && /^[a-z0-9.-]+$/.test(url.hostname);
}
