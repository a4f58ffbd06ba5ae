import express, { type Router } from 'express';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { revokeToken } from '../domain/revocation/revoke-token';
import { authenticateRequestClient, type ClientAuth } from './client-auth';
import { cors } from './cors';
import { parseFormBody } from './parse-params';

/** POST /revoke (RFC 7009): client authentication, then 200 whether or not the token was known. */
export function revokeRouter(ctx: AuthContext, clientAuth: ClientAuth): Router {
  const router = express.Router();
  router.options('/revoke', cors);
  router.post('/revoke', cors, express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const params = parseFormBody(req);
    const client = await authenticateRequestClient(clientAuth, req, params);
    if (!params.token) throw new OAuthError('invalid_request', 'token is required');
    await revokeToken(ctx, client, params.token);
    res.status(200).end();
  });
  return router;
}
