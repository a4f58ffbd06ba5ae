import express, { type Request, type Router } from 'express';
import type { AuthContext } from '../domain/auth-context';
import {
  deleteRegistration,
  readRegistration,
  registerDynamicClient,
  replaceRegistration,
  REGISTRATION_PATH,
} from '../domain/clients/dynamic-registration';

function bearer(req: Request): string | undefined {
  return req.headers.authorization?.match(/^Bearer ([\x21-\x7e]+)$/i)?.[1];
}

/**
 * RFC 7591 §3 registration endpoint and RFC 7592 client configuration endpoint. Mounted only when
 * DYNAMIC_REGISTRATION_ENABLED (auth-core.ts); every answer is no-store (it carries secrets).
 */
export function registrationRouter(ctx: AuthContext): Router {
  const router = express.Router();
  router.use(REGISTRATION_PATH, express.json({ limit: '64kb' }), (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  router.post(REGISTRATION_PATH, async (req, res) => {
    res.status(201).json(await registerDynamicClient(ctx, bearer(req), req.body));
  });
  router.get(`${REGISTRATION_PATH}/:clientId`, async (req, res) => {
    res.json(await readRegistration(ctx, req.params.clientId, bearer(req)));
  });
  router.put(`${REGISTRATION_PATH}/:clientId`, async (req, res) => {
    res.json(await replaceRegistration(ctx, req.params.clientId, bearer(req), req.body));
  });
  router.delete(`${REGISTRATION_PATH}/:clientId`, async (req, res) => {
    await deleteRegistration(ctx, req.params.clientId, bearer(req));
    res.status(204).end();
  });
  return router;
}
