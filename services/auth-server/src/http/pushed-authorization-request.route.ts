import express, { type Router } from 'express';
import type { AuthContext } from '../domain/auth-context';
import { pushAuthorizationRequest } from '../domain/authorize/push-authorization-request';
import { authenticateRequestClient, type ClientAuth } from './client-auth';
import { cors } from './cors';
import { listParam, parseFormBody } from './parse-params';

export const PAR_PATH = '/par';

/**
 * POST /par (RFC 9126 §2): client authentication as at /token (§2: confidential clients authenticate,
 * public ones send client_id), then the authorization request is validated and stored; 201 with its
 * `request_uri` and `expires_in` (§2.2). no-store like a token response; CORS as /token (no cookies).
 */
export function pushedAuthorizationRequestRouter(ctx: AuthContext, clientAuth: ClientAuth): Router {
  const router = express.Router();
  router.options(PAR_PATH, cors);
  router.post(PAR_PATH, cors, express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache');
    const params = parseFormBody(req);
    const client = await authenticateRequestClient(clientAuth, req, params);
    const pushed = await pushAuthorizationRequest(ctx, client, params, listParam(req.body, 'resource'));
    res.status(201).json(pushed);
  });
  return router;
}
