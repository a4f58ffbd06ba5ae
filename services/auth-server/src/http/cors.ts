import type { NextFunction, Request, Response } from 'express';

/**
 * CORS for the endpoints a browser-based (public) client calls: token, revocation, userinfo, metadata
 * and JWKS (RFC 9700 §2.6 allows it there; never on /authorize). No cookies are involved, so `*` is safe.
 * A browser client using DPoP (RFC 9449) sends a `DPoP` header and must read `DPoP-Nonce` (§8) and the
 * `WWW-Authenticate` challenge, neither of which CORS lets it see unless listed.
 */
export function cors(req: Request, res: Response, next: NextFunction): void {
  res.set('Access-Control-Allow-Origin', '*');
  res.set('Access-Control-Expose-Headers', 'DPoP-Nonce, WWW-Authenticate');
  if (req.method === 'OPTIONS') {
    res
      .set('Access-Control-Allow-Methods', 'GET, POST')
      .set('Access-Control-Allow-Headers', 'Authorization, Content-Type, DPoP')
      .set('Access-Control-Max-Age', '600')
      .status(204)
      .end();
    return;
  }
  next();
}
