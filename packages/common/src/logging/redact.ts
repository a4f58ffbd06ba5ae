import { newDictionary } from '../objects/own-property';

/**
 * Keys whose values never reach a log line: credentials, tokens, codes and the headers that carry them.
 * Matching is case-insensitive; any key ending in `_token` or `token` is covered too.
 */
const REDACTED_KEYS = new Set([
  'authorization',
  'proxy-authorization',
  'resource-server-authorization',
  'cookie',
  'set-cookie',
  'client_secret',
  'clientsecret',
  'secret',
  'password',
  'passwd',
  'code',
  'code_verifier',
  'device_code', // RFC 8628: the device's secret, and the short code a person types
  'user_code',
  'token',
  'assertion',
  'client_assertion',
  'csrf',
  '_csrf',
  'x-api-key',
]);

export const REDACTED = '[REDACTED]';

export function isSensitiveKey(key: string): boolean {
  const lower = key.toLowerCase();
  return (
    REDACTED_KEYS.has(lower) ||
    lower.endsWith('_token') ||
    lower.endsWith('token') ||
    lower.endsWith('secret')
  );
}

/** Deep copy with sensitive keys replaced; cycles and depth are bounded so logging never throws. */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8 || seen.has(value)) return '[…]';
  seen.add(value);
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1, seen));
  // Log fields may be keyed by user strings (request parameters, document fields): a `__proto__` key is
  // copied as a key, not as the copy's prototype (issue 17).
  const out = newDictionary<unknown>();
  for (const [key, item] of Object.entries(value)) {
    out[key] = isSensitiveKey(key) ? REDACTED : redact(item, depth + 1, seen);
  }
  return out;
}

/** Bearer/Basic credentials and JWT-looking strings inside free text (error messages, URLs). */
const INLINE_PATTERNS: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  [
    /([?&](?:code|token|access_token|refresh_token|id_token|client_secret|password|code_verifier|device_code|user_code)=)[^&\s"]*/gi,
    `$1${REDACTED}`,
  ],
];

export function redactText(text: string): string {
  return INLINE_PATTERNS.reduce((acc, [pattern, replacement]) => acc.replace(pattern, replacement), text);
}
