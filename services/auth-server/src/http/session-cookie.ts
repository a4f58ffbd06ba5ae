import type { CookieOptions, Request } from 'express';

/** One cookie from the Cookie header (RFC 6265 §5.4), or undefined. The first occurrence wins. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
  }
  return undefined;
}

/**
 * HttpOnly (no script can read it), SameSite=Lax (not sent on cross-site POSTs: a first CSRF barrier, and
 * still sent on the top-level GET that brings the user back to /authorize), Secure behind TLS.
 */
export function pageCookieOptions(req: Request, issuer: string, maxAgeSeconds?: number): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: issuer.startsWith('https:') || req.secure,
    path: '/',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds * 1000 }),
  };
}

/**
 * The cookie's name: with the `__Host-` prefix on an https issuer, so the browser accepts it only Secure,
 * for Path=/ and without Domain (RFC 6265bis §4.1.3.2): a sibling subdomain or a plain-http page cannot
 * plant or overwrite it. Plain names on an http issuer, where browsers would refuse the prefix (local dev).
 */
export function pageCookieName(name: string, issuer: string): string {
  return issuer.startsWith('https:') ? `__Host-${name}` : name;
}
