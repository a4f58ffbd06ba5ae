import type { RequestHandler, Response } from 'express';

const PAGE_CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/**
 * Headers on every page. RFC 9700 §4.16 (clickjacking): CSP frame-ancestors plus X-Frame-Options for older
 * browsers. §4.2.4 (referrer leakage): no-referrer, and default-src 'self' so no third-party resource can
 * load. no-store: pages carry CSRF tokens and personal data. No CORS headers (§2.6: never on /authorize).
 */
export function pageHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy': PAGE_CSP,
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    next();
  };
}

/**
 * A page showing a client's logo_uri from an origin the operator allowed (UI_LOGO_ORIGINS): its CSP lets
 * images come from that one origin besides our own, nothing else. The origin was checked to be an https
 * origin in the allow-list, so it holds no character that could end the directive.
 */
export function allowImageOrigin(res: Response, origin: string): void {
  res.set('Content-Security-Policy', `${PAGE_CSP}; img-src 'self' ${origin}`);
}
