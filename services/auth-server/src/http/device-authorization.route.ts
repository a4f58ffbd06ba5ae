import express, { type Router } from 'express';
import type { AuthContext } from '../domain/auth-context';
import { startDeviceAuthorization } from '../domain/device/start-device-authorization';
import { authenticateRequestClient, type ClientAuth } from './client-auth';
import { cors } from './cors';
import { listParam, parseFormBody } from './parse-params';

/**
 * POST /device_authorization (RFC 8628 §3.1–3.2): client authentication as at /token (§3.1: confidential
 * clients authenticate, public ones send client_id), then the codes. no-store like a token response; CORS
 * as /token (no cookies), for devices whose app runs in a browser engine.
 */
export function deviceAuthorizationRouter(ctx: AuthContext, clientAuth: ClientAuth): Router {
  const router = express.Router();
  router.options('/device_authorization', cors);
  router.post(
    '/device_authorization',
    cors,
    express.urlencoded({ extended: false, limit: '16kb' }),
    async (req, res) => {
      res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache');
      const params = parseFormBody(req);
      const client = await authenticateRequestClient(clientAuth, req, params);
      res.json(
        await startDeviceAuthorization(ctx, client, {
          scope: params.scope,
          resource: listParam(req.body, 'resource'),
        }),
      );
    },
  );
  return router;
}
