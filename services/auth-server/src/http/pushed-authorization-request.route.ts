import express, { type Router } from 'express';
import type { AuthContext } from '../domain/auth-context';
import { pushAuthorizationRequest } from '../domain/authorize/push-authorization-request';
import { authenticateRequestClient, type ClientAuth } from './client-auth';
import { cors } from './cors';
import { listParam, parseFormBody } from './parse-params';
import { OAuthError } from '@acme/common';
import { checkEndpointProof } from '../domain/dpop/check-token-proof';
import type { TokenDpop } from '../domain/dpop/token-dpop';

export const PAR_PATH = '/par';

/**
 * POST /par (RFC 9126 §2): client authentication as at /token (§2: confidential clients authenticate,
 * public ones send client_id), then the authorization request is validated and stored; 201 with its
 * `request_uri` and `expires_in` (§2.2). no-store like a token response; CORS as /token (no cookies).
 */
export function pushedAuthorizationRequestRouter(
  ctx: AuthContext,
  clientAuth: ClientAuth,
  dpop: TokenDpop,
): Router {
  const router = express.Router();
  router.options(PAR_PATH, cors);
  router.post(PAR_PATH, cors, express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache');
    const params = parseFormBody(req);
    const client = await authenticateRequestClient(clientAuth, req, params);
    // RFC 9449 §10.1: a DPoP proof at PAR binds the code as dpop_jkt would; both must then agree.
    const proof = req.headers.dpop;
    if (proof !== undefined) {
      const { jkt } = await checkEndpointProof(ctx, dpop, proof, PAR_PATH);
      if (params.dpop_jkt !== undefined && params.dpop_jkt !== jkt)
        throw new OAuthError('invalid_dpop_proof', 'dpop_jkt does not match the DPoP proof key');
      params.dpop_jkt = jkt;
    }
    const pushed = await pushAuthorizationRequest(
      ctx,
      clientAuth.assertions,
      client,
      params,
      listParam(req.body, 'resource'),
    );
    res.status(201).json(pushed);
  });
  return router;
}
