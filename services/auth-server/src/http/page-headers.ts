import type { RequestHandler } from 'express';

/**
 * Headers on every page. RFC 9700 §4.16 (clickjacking): CSP frame-ancestors plus X-Frame-Options for older
 * browsers. §4.2.4 (referrer leakage): no-referrer, and default-src 'self' so no third-party resource can
 * load. no-store: pages carry CSRF tokens and personal data. No CORS headers (§2.6: never on /authorize).
 */
export function pageHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy':
        "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    next();
  };
}
