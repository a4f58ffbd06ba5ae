import type { IncomingMessage } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@acme/common';
import { INTROSPECTION_HEADERS, type IntrospectionHandler } from './introspection.route';
import { parseParams } from './parse-params';

/** body-parser's limits on the express route: 16 kB, 1000 parameters. */
const BODY_LIMIT = 16 * 1024;
const PARAMETER_LIMIT = 1000;
const FORM = /^application\/x-www-form-urlencoded[ \t]*(?:;[ \t]*charset=(?:utf-8|"utf-8")[ \t]*)?$/i;
/** What express sets as req.route on the route; routePattern() labels metrics and access lines with it. */
const ROUTE = { path: '/token_info' };

/**
 * POST /token_info in front of express's middleware stack (issue 4: the hot path of every resource
 * server call). The profile of the route under load was express and body-parser machinery, not the
 * lookup: the pages' and other routes' middleware, raw-body streams, type-is, qs, res.json/res.send.
 * This takes the usual request (a urlencoded utf-8 body of known length ≤ 16 kB, no encoding, no query)
 * with the same steps as the route, shared through IntrospectionHandler: request id, access line,
 * metrics, Basic check through passport-http's BasicStrategy, throttle, duplicate parameters refused;
 * errors go to next(error), so the app's OAuth error handler writes the same envelope. Anything else
 * goes on untouched to the express route (JSON, chunked, compressed, other charsets, over the limit).
 * serveBeforeRouter mounts it ahead of express's router; it also works as an ordinary middleware.
 */
export function introspectionFastPath(deps: {
  handle: IntrospectionHandler;
  /** The signing keys are loaded (JWT access tokens are verified with them). */
  ready: () => Promise<void>;
  logger: Logger;
  /** The app's request id, access log and metrics middleware, run as on every other route. */
  requestId: RequestHandler;
  accessLog: RequestHandler;
  metrics: RequestHandler;
}): RequestHandler {
  const { handle, logger } = deps;
  return (req, res, next) => {
    if (!isLeanIntrospection(req)) return next();
    const length = Number(req.headers['content-length']);
    const skip = () => undefined;
    deps.requestId(req, res, skip);
    // winston formats a line before its level filter drops it: skip the work when info is off.
    if (logger.isLevelEnabled('info')) deps.accessLog(req, res, skip);
    deps.metrics(req, res, skip);
    req.baseUrl = '';
    (req as Request & { route: typeof ROUTE }).route = ROUTE;
    readBody(req, length)
      .then(async (text) => {
        const form = parseForm(text);
        await deps.ready();
        const result = await handle(req, () => parseParams(form));
        answer(res, result);
      })
      .catch((error: unknown) => {
        if (!res.headersSent) res.set(INTROSPECTION_HEADERS);
        next(error);
      });
  };
}

/**
 * Serves the lean path before express's router: app(req, res) calls app.handle, so the lean request
 * gets what app.handle gives every request (express's req/res prototypes: req.ip with trust proxy,
 * res.set) and skips the router's dispatch; its errors go straight to the app's error handler.
 */
export function serveBeforeRouter(
  app: Express,
  lean: RequestHandler,
  errorHandler: ErrorRequestHandler,
): void {
  const routed = app as unknown as { handle: (req: Request, res: Response, callback?: unknown) => void };
  const handle = routed.handle.bind(app);
  routed.handle = (req, res, callback) => {
    if (!isLeanIntrospection(req)) return handle(req, res, callback);
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    lean(req, res, (error?: unknown) => {
      if (error) errorHandler(error, req, res, () => undefined);
      else handle(req, res, callback);
    });
  };
}

/** POST /token_info with a urlencoded utf-8 body of known length ≤ 16 kB, no content encoding. */
function isLeanIntrospection(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || req.url !== '/token_info') return false;
  const { headers } = req;
  const type = headers['content-type'];
  const length = headers['content-length'];
  if (type === undefined || length === undefined || !FORM.test(type)) return false;
  if (headers['transfer-encoding'] !== undefined) return false;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const bytes = Number(length);
  return Number.isInteger(bytes) && bytes >= 0 && bytes <= BODY_LIMIT;
}

function answer(res: Response, result: unknown): void {
  const body = JSON.stringify(result);
  res.writeHead(200, {
    ...INTROSPECTION_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The body as utf-8; a size that differs from Content-Length or an aborted upload is a 400, as raw-body says. */
function readBody(req: Request, length: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const fail = (message: string) => reject(Object.assign(new Error(message), { status: 400 }));
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (received !== length) return fail('request size did not match content length');
      resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
    });
    req.on('aborted', () => fail('request aborted'));
    req.on('error', reject);
  });
}

/**
 * application/x-www-form-urlencoded as body-parser's `extended: false` reads it (qs with depth 0):
 * flat keys, `+` is a space, undecodable percent sequences kept as sent, a repeated key becomes an
 * array (parseParams then refuses it), empty keys and __proto__ dropped, more than 1000 parameters a 413.
 */
export function parseForm(text: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  if (text === '') return form;
  const parts = text.split('&');
  if (parts.length > PARAMETER_LIMIT) throw Object.assign(new Error('too many parameters'), { status: 413 });
  for (const part of parts) {
    if (part === '') continue;
    const bracketEquals = part.indexOf(']=');
    const eq = bracketEquals < 0 ? part.indexOf('=') : bracketEquals + 1;
    const key = decode(eq < 0 ? part : part.slice(0, eq));
    if (key === '' || key === '__proto__') continue;
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    const previous = form[key];
    form[key] = previous === undefined ? value : [previous, value].flat();
  }
  return form;
}

function decode(value: string): string {
  const spaced = value.includes('+') ? value.replace(/\+/g, ' ') : value;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
