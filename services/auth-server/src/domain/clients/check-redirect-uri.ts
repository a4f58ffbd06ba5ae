import { OAuthError } from '@acme/common';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Registration rules (RFC 9700 §2.1 and §2.6, RFC 8252 §7): absolute, no fragment; https for web
 * clients; native clients may also use http on a loopback address or a private-use scheme with a dot.
 */
export function checkRedirectUriForRegistration(uri: string, applicationType: 'web' | 'native'): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new OAuthError('invalid_redirect_uri', `not an absolute URI: ${uri}`);
  }
  if (url.hash || uri.includes('#'))
    throw new OAuthError('invalid_redirect_uri', `fragment not allowed: ${uri}`);
  if (url.protocol === 'https:') return;
  if (applicationType === 'native') {
    if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return;
    if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/i.test(url.protocol)) return;
  }
  throw new OAuthError(
    'invalid_redirect_uri',
    `redirect URI must use https (or loopback http for native apps): ${uri}`,
  );
}

/**
 * RFC 9700 §4.1.3: exact string match; the one exception is the port of a native app's loopback
 * redirect (RFC 8252 §7.3), which the OS picks at run time.
 */
export function matchRedirectUri(
  requested: string,
  registered: string[],
  applicationType: 'web' | 'native',
): boolean {
  if (registered.includes(requested)) return true;
  if (applicationType !== 'native') return false;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname) || url.toString() !== requested) return false;
  return registered.some((candidate) => {
    const reg = new URL(candidate);
    if (reg.protocol !== 'http:' || reg.hostname !== url.hostname) return false;
    reg.port = url.port;
    return reg.toString() === requested;
  });
}
