/**
 * The Authorization header, parsed once.
 * - RFC 9110 §11.1: the auth scheme is case-insensitive and separated from its credentials by spaces.
 * - RFC 6750 §2.1: a Bearer token is a b64token (`ALPHA DIGIT - . _ ~ + /` then `=` padding).
 * - RFC 9449 §7.1: DPoP carries the access token as Bearer does (token68 syntax), with a `DPoP` proof header.
 * - RFC 7617 §2: Basic is base64(user-id ":" password); the user-id cannot contain ":", so split at the first.
 */
export type AuthorizationCredentials =
  | { scheme: 'bearer'; token: string }
  | { scheme: 'dpop'; token: string }
  | { scheme: 'basic'; username: string; password: string }
  | { scheme: 'malformed'; declared: 'bearer' | 'dpop' | 'basic' | 'other' };

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Undefined when no header was sent; `malformed` when one was sent but cannot be used. */
export function parseAuthorization(header: string | undefined): AuthorizationCredentials | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?: +(.*))?$/.exec(header.trim());
  if (!match) return { scheme: 'malformed', declared: 'other' };
  const scheme = match[1]!.toLowerCase();
  const value = (match[2] ?? '').trim();
  if (scheme === 'bearer') {
    return B64TOKEN.test(value)
      ? { scheme: 'bearer', token: value }
      : { scheme: 'malformed', declared: 'bearer' };
  }
  if (scheme === 'dpop') {
    return B64TOKEN.test(value)
      ? { scheme: 'dpop', token: value }
      : { scheme: 'malformed', declared: 'dpop' };
  }
  if (scheme === 'basic') return parseBasic(value);
  return { scheme: 'malformed', declared: 'other' };
}

function parseBasic(value: string): AuthorizationCredentials {
  if (!BASE64.test(value) || value.length % 4 !== 0) return { scheme: 'malformed', declared: 'basic' };
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return { scheme: 'malformed', declared: 'basic' };
  return { scheme: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * RFC 6749 §2.3.1: the client id and secret are each encoded with application/x-www-form-urlencoded
 * before they are joined by ":" and base64-encoded, so a ":" or "%" in either survives the trip.
 */
export function formatClientBasic(clientId: string, clientSecret: string): string {
  const joined = `${formUrlEncode(clientId)}:${formUrlEncode(clientSecret)}`;
  return `Basic ${Buffer.from(joined, 'utf8').toString('base64')}`;
}

/** The WHATWG application/x-www-form-urlencoded serializer: space → "+", only `*-._` and alphanumerics kept. */
export function formUrlEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}
