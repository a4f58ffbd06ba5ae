import express, { type Request, type Response, type Router } from 'express';
import { checkResourceDpop, DpopResourceError, OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { DPOP_FUTURE_SKEW_SECONDS } from '../domain/dpop/check-token-proof';
import type { TokenDpop } from '../domain/dpop/token-dpop';
import { findActiveToken } from '../domain/tokens/find-token';
import { claimsForScopes } from '../domain/users/claims-for-scopes';
import { cors } from './cors';
import { parseParams } from './parse-params';

const bearerError = (
  code: 'invalid_request' | 'invalid_token' | 'insufficient_scope',
  description?: string,
) =>
  new OAuthError(code, description, {
    'WWW-Authenticate': description
      ? `Bearer realm="userinfo", error="${code}", error_description="${description}"`
      : 'Bearer realm="userinfo"',
  });

/**
 * GET/POST /userinfo (OIDC Core §5.3) with a Bearer access token (RFC 6750 §2.1 header, §2.2 form body), or a
 * DPoP-bound one as `Authorization: DPoP` with a proof (RFC 9449 §7: htm, htu = our published userinfo URL,
 * `ath`, the token's key, `jti` once, our nonce when DPOP_NONCE_REQUIRED). A bound token sent as Bearer is
 * refused (§7.2): userinfo is a protected resource like any other. Errors carry WWW-Authenticate: Bearer per
 * RFC 6750 §3 (no error code when no token was sent, §3.1), or the DPoP challenge for DPoP failures.
 */
export function userinfoRouter(ctx: AuthContext, dpop: TokenDpop): Router {
  const router = express.Router();
  const handle = async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    const header = req.headers.authorization;
    const body =
      req.method === 'POST' && req.is('application/x-www-form-urlencoded') ? parseParams(req.body) : {};
    if (header && body.access_token) throw bearerError('invalid_request', 'use one way to send the token');
    const presented = header?.match(/^(Bearer|DPoP) ([\x21-\x7e]+)$/i);
    const scheme = presented?.[1]?.toLowerCase() === 'dpop' ? 'dpop' : 'bearer';
    const token = presented?.[2] ?? body.access_token;
    if (!token) {
      if (header) throw bearerError('invalid_request', 'malformed Authorization header');
      throw new OAuthError('invalid_token', undefined, { 'WWW-Authenticate': 'Bearer realm="userinfo"' });
    }
    const record = await findActiveToken(ctx, token);
    if (!record || record.kind !== 'access_token' || !record.userId)
      throw bearerError('invalid_token', 'the access token is invalid');
    try {
      await checkResourceDpop({
        scheme,
        token,
        principal: {
          scopes: record.scopes,
          audience: [],
          source: 'introspection',
          ...(record.dpopJkt ? { dpopJkt: record.dpopJkt } : {}),
        },
        proof: req.headers.dpop,
        method: req.method,
        url: `${ctx.config.ISSUER}/userinfo`,
        replay: dpop.replay,
        maxAgeSeconds: ctx.config.DPOP_PROOF_MAX_AGE_SECONDS,
        futureSkewSeconds: DPOP_FUTURE_SKEW_SECONDS,
        ...(dpop.nonces ? { nonces: dpop.nonces } : {}),
      });
    } catch (error) {
      if (!(error instanceof DpopResourceError)) throw error;
      // RFC 9449 §7.1: 401 with the DPoP challenge; §9: use_dpop_nonce names the nonce to retry with.
      throw new OAuthError(
        error.error,
        error.description,
        {
          'WWW-Authenticate': error.challenge('userinfo'),
          ...(error.error === 'use_dpop_nonce' && dpop.nonces ? { 'DPoP-Nonce': dpop.nonces.current() } : {}),
        },
        401,
      );
    }
    if (!record.scopes.includes('openid'))
      throw bearerError('insufficient_scope', 'the openid scope is required');
    const [user, grant] = await Promise.all([
      ctx.repos.users.findById(record.userId),
      ctx.repos.grants.findById(record.grantId),
    ]);
    if (!user) throw bearerError('invalid_token', 'the access token is invalid');
    // OIDC Core §5.4 by scope, and §5.5 the userinfo claims its request asked for by name (on the grant).
    res.json({ sub: user.userId, ...claimsForScopes(user.claims, record.scopes, grant?.claims?.userinfo) });
  };
  router.options('/userinfo', cors);
  router.get('/userinfo', cors, handle);
  router.post('/userinfo', cors, express.urlencoded({ extended: false, limit: '16kb' }), handle);
  return router;
}
