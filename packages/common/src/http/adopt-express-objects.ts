import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';

/**
 * What express's app.handle does to node's request and response before its stack runs (links both
 * ways, originalUrl, res.locals, express's prototypes), for a lean path answered in front of express
 * (auth-server's /token_info, search-store's _search) that needs express's objects after all, to hand
 * an error to the app's error handler (res.status, res.json, req.get).
 */
export function adoptExpressObjects(
  app: Express,
  req: IncomingMessage,
  res: ServerResponse,
): { req: Request; res: Response } {
  const request = req as IncomingMessage & { res?: ServerResponse; originalUrl?: string };
  const response = res as ServerResponse & { req?: IncomingMessage; locals?: Record<string, unknown> };
  request.res = res;
  request.originalUrl ??= req.url;
  response.req = req;
  response.locals ??= Object.create(null) as Record<string, unknown>;
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  return { req: req as Request, res: res as Response };
}
