import { newDictionary } from '@acme/common';
/** The query parameter that marks the /authorize continuation right after a login on this session. */
export const LOGIN_MARK_PARAM = 'login_mark';

export type RawParams = Record<string, string | string[]>;

/**
 * Keeps the string parameters of a query or form body (repeated ones as arrays, for the flow's
 * duplicate check, RFC 6749 §3.1) and drops anything else the parser may have produced.
 */
export function pickRawParams(source: unknown): RawParams {
  // Keyed by the client's parameter names (`constructor`, `__proto__` are names like any other).
  const out: RawParams = newDictionary();
  if (source === null || typeof source !== 'object') return out;
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === 'string') out[key] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) out[key] = value;
  }
  return out;
}

export function toQueryString(params: RawParams): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, item);
  }
  return search.toString();
}

export function fromQueryString(query: string): RawParams {
  // Null prototype: `out[key]` of `constructor` or `toString` is undefined until set, not Object's member
  // (which made them look repeated and failed the /authorize continuation).
  const out: RawParams = newDictionary();
  for (const [key, value] of new URLSearchParams(query)) {
    const previous = out[key];
    out[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return out;
}

/**
 * Where the login form may send the browser afterwards: only our own account page, an /authorize
 * continuation or the device page (RFC 8628 §3.3, its code in the query). Anything else (an absolute URL,
 * `//host`, another path) falls back to the account page, so the login form is never an open redirector.
 */
export function parseReturnTo(value: string | undefined): string {
  if (value && value.startsWith('/authorize?') && !value.includes('#')) return value;
  if (value && (value === '/device' || value.startsWith('/device?')) && !value.includes('#')) return value;
  return '/account';
}
