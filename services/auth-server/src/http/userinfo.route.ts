import express, { type Request, type Response, type Router } from 'express';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
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
 * GET/POST /userinfo (OIDC Core §5.3) with a Bearer access token (RFC 6750 §2.1 header, §2.2 form body).
 * Errors carry WWW-Authenticate: Bearer per RFC 6750 §3 (no error code when no token was sent, §3.1).
 */
export function userinfoRouter(ctx: AuthContext): Router {
  const router = express.Router();
  const handle = async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    const header = req.headers.authorization;
    const body =
      req.method === 'POST' && req.is('application/x-www-form-urlencoded') ? parseParams(req.body) : {};
    if (header && body.access_token) throw bearerError('invalid_request', 'use one way to send the token');
    const token = header?.match(/^Bearer ([\x21-\x7e]+)$/i)?.[1] ?? body.access_token;
    if (!token) {
      if (header) throw bearerError('invalid_request', 'malformed Authorization header');
      throw new OAuthError('invalid_token', undefined, { 'WWW-Authenticate': 'Bearer realm="userinfo"' });
    }
    const record = await findActiveToken(ctx, token);
    if (!record || record.kind !== 'access_token' || !record.userId)
      throw bearerError('invalid_token', 'the access token is invalid');
    if (!record.scopes.includes('openid'))
      throw bearerError('insufficient_scope', 'the openid scope is required');
    const user = await ctx.repos.users.findById(record.userId);
    if (!user) throw bearerError('invalid_token', 'the access token is invalid');
    res.json({ sub: user.userId, ...claimsForScopes(user.claims, record.scopes) });
  };
  router.options('/userinfo', cors);
  router.get('/userinfo', cors, handle);
  router.post('/userinfo', cors, express.urlencoded({ extended: false, limit: '16kb' }), handle);
  return router;
}
