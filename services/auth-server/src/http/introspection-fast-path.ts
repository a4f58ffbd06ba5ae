import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import {
  adoptExpressObjects,
  frontRoute,
  resolveRequestId,
  serveBeforeExpress,
  type Logger,
} from '@acme/common';
import { INTROSPECTION_HEADERS, type IntrospectionHandler } from './introspection.route';
import { parseParams } from './parse-params';

/** body-parser's limits on the express route: 16 kB, 1000 parameters. */
const BODY_LIMIT = 16 * 1024;
const PARAMETER_LIMIT = 1000;
const FORM = /^application\/x-www-form-urlencoded[ \t]*(?:;[ \t]*charset=(?:utf-8|"utf-8")[ \t]*)?$/i;
/** What express sets as req.route on the route; routePattern() labels metrics and access lines with it. */
const ROUTE = { path: '/token_info' };

type LeanRequest = IncomingMessage & { id?: string; route?: typeof ROUTE; baseUrl?: string };

/**
 * POST /token_info in front of express (issue 4: the hot path of every resource-server call).
 * Profiles of the route under load were express machinery, not the lookup: the app-wide stack,
 * raw-body streams, type-is, qs, res.json/res.send, and above all app.handle's
 * Object.setPrototypeOf(req/res, express's prototypes) on node's request and response objects, which
 * alone cost more per request than a whole plain node:http answer (~45 us against ~20 us here).
 * serveBeforeRouter takes the usual request (a urlencoded utf-8 body of known length <= 16 kB, no
 * encoding, no query) on node's own objects with the same steps as the route, shared through
 * IntrospectionHandler: request id, access line, metrics, Basic check through passport-http's
 * BasicStrategy, allow-list, throttle, duplicate parameters refused. An error gets express's
 * prototypes after all and goes to the app's OAuth error handler, which writes the same envelope.
 * Anything else goes to the express route (JSON, chunked, compressed, other charsets, over the
 * limit); serveBeforeExpress (@acme/common) decides, as it does for search-store's _search.
 */
export function serveBeforeRouter(
  app: Express,
  deps: {
    handle: IntrospectionHandler;
    /** The signing keys are loaded (JWT access tokens are verified with them). */
    ready: () => Promise<void>;
    logger: Logger;
    /** The app's access log and metrics middleware, run as on every other route. */
    accessLog: RequestHandler;
    metrics: RequestHandler;
    errorHandler: ErrorRequestHandler;
  },
): void {
  const { handle, logger } = deps;
  const ipOf = clientIp(app);
  const skip = () => undefined;
  const fail = (req: LeanRequest, res: ServerResponse, error: unknown) => {
    if (res.headersSent) return void res.destroy();
    for (const [name, value] of Object.entries(INTROSPECTION_HEADERS)) res.setHeader(name, value);
    const adopted = adoptExpressObjects(app, req, res);
    deps.errorHandler(error, adopted.req, adopted.res, skip);
  };
  const serveLean = (request: IncomingMessage, res: ServerResponse): void => {
    const req: LeanRequest = request;
    req.id = resolveRequestId(headerValue(req.headers['x-request-id']));
    res.setHeader('x-request-id', req.id);
    req.baseUrl = '';
    req.route = ROUTE;
    // winston formats a line before its level filter drops it: skip the work when info is off.
    if (logger.isLevelEnabled('info')) deps.accessLog(req as Request, res as Response, skip);
    deps.metrics(req as Request, res as Response, skip);
    readBody(req, Number(req.headers['content-length']))
      .then(async (text) => {
        const form = parseForm(text);
        await deps.ready();
        answer(res, await handle(req, ipOf(req), () => parseParams(form)));
      })
      .catch((error: unknown) => fail(req, res, error));
  };
  serveBeforeExpress(app, [
    frontRoute({ match: (req) => (isLeanIntrospection(req) ? true : undefined), serve: serveLean }),
  ]);
}

/**
 * req.ip as express computes it (its getter, honouring the app's trust proxy setting), read from
 * the headers and socket alone so node's request object keeps its prototype.
 */
function clientIp(app: Express): (req: IncomingMessage) => string {
  let proto: object | null = app.request;
  let getter: (() => unknown) | undefined;
  while (proto && !getter) {
    getter = Object.getOwnPropertyDescriptor(proto, 'ip')?.get;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  if (!getter) throw new Error('express request has no ip getter');
  const ip = getter;
  return (req) => {
    const view = { app, headers: req.headers, socket: req.socket, connection: req.socket };
    const value = ip.call(view);
    return typeof value === 'string' ? value : 'unknown';
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** POST /token_info with a urlencoded utf-8 body of known length <= 16 kB, no content encoding. */
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

function answer(res: ServerResponse, result: unknown): void {
  const body = JSON.stringify(result);
  res.writeHead(200, {
    ...INTROSPECTION_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The body as utf-8; a size that differs from Content-Length or an aborted upload is a 400, as raw-body says. */
function readBody(req: IncomingMessage, length: number): Promise<string> {
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
