import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Accepted inbound ids: 1–128 chars of a safe alphabet, so a forged header cannot inject into logs. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by requestId(): the inbound x-request-id when well formed, else a new UUID. */
    id: string;
  }
}

/** The inbound x-request-id when well formed, else a new UUID (for handlers outside express's stack). */
export function resolveRequestId(inbound: string | undefined): string {
  return inbound && WELL_FORMED.test(inbound) ? inbound : randomUUID();
}

export function requestId(): RequestHandler {
  return (req, res, next) => {
    req.id = resolveRequestId(req.get('x-request-id'));
    res.setHeader('x-request-id', req.id);
    next();
  };
}
