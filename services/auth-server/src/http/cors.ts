import type { NextFunction, Request, Response } from 'express';

/**
 * CORS for the endpoints a browser-based (public) client calls: token, revocation, userinfo, metadata
 * and JWKS (RFC 9700 §2.6 allows it there; never on /authorize). No cookies are involved, so `*` is safe.
 */
export function cors(req: Request, res: Response, next: NextFunction): void {
  res.set('Access-Control-Allow-Origin', '*');
  if (req.method === 'OPTIONS') {
    res
      .set('Access-Control-Allow-Methods', 'GET, POST')
      .set('Access-Control-Allow-Headers', 'Authorization, Content-Type')
      .set('Access-Control-Max-Age', '600')
      .status(204)
      .end();
    return;
  }
  next();
}
