import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
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

/**
 * The request's id, echoed in the x-request-id response header: the one step both request paths
 * (express's stack and the front handler, front-handler.ts) take, on node's own objects.
 */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const inbound = req.headers['x-request-id'];
  const id = resolveRequestId(Array.isArray(inbound) ? inbound.join(', ') : inbound);
  res.setHeader('x-request-id', id);
  return id;
}

export function requestId(): RequestHandler {
  return (req, res, next) => {
    req.id = assignRequestId(req, res);
    next();
  };
}
