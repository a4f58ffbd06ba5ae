import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import { adoptExpressObjects, frontRoute, resolveRequestId, serveBeforeExpress } from '@acme/common';
import { parseMediaType } from '../http/media-type';
import { parseJsonText } from '../http/parse-json-text';
import { stringifyWithRaw } from '../http/raw-json';
import { tooLarge } from '../http/read-body';
import { parseJsonWithLocations } from '../query/json-locations';
import { requireScope } from '../auth/route-scope';
import { SEARCH_ACCESS, type SearchRunner } from './search.route';
import { clientGoneSignal } from './client-gone';

/** Larger bodies (a search is rarely more than a few kB) take the express route. */
const LEAN_BODY_LIMIT = 1024 * 1024;
const SEARCH_PATH = /^\/(?:([^/]+)\/)?_search$/;

type LeanRequest = IncomingMessage & {
  id?: string;
  route?: { path: string };
  baseUrl?: string;
};

export interface LeanSearchDeps {
  run: SearchRunner;
  /** The app's authentication, given an object with what it reads of a request; the scope check follows. */
  authenticate: RequestHandler;
  accessLog: RequestHandler;
  metrics: RequestHandler;
  /** Installs res.json's Elasticsearch formatting (http/format-response.ts) before an error is written. */
  formatResponse: RequestHandler;
  errorHandler: ErrorRequestHandler;
  maxBytes: number;
}

/**
 * `POST /_search` and `POST /<index>/_search` in front of express, for the usual request: no query
 * string, a JSON body of known length, no content encoding. The search itself is a single statement
 * when the fast path answers from its cache (query/fast-match), ~0.3 ms; express's machinery around
 * it (the prototype swap of app.handle, ten middleware layers and the router, a stream iterator for
 * the body, res.json) cost about as much again, profiled. This path takes the same steps as the
 * route, in the same order: X-Elastic-Product, request id, X-Opaque-Id, access line, metrics under
 * the route's pattern, authentication and the route's scope (the route's own check, SEARCH_ACCESS), the
 * body read and parsed as
 * readJsonBody and searchBodyOf do (errors with line and column), and the same runner
 * (createSearchRunner). Errors get express's prototypes after all and go to the app's error handler,
 * which writes the same envelope. Anything else (query parameters, GET, chunked or encoded bodies,
 * other media types) goes to the express route (serveBeforeExpress, @acme/common).
 */
export function serveSearchBeforeRouter(app: Express, deps: LeanSearchDeps): void {
  const skip = () => undefined;
  const checkScope = requireScope(SEARCH_ACCESS);
  const fail = (req: LeanRequest, res: ServerResponse, error: unknown) => {
    if (res.headersSent) return void res.destroy();
    const adopted = adoptExpressObjects(app, req, res);
    deps.formatResponse(adopted.req, adopted.res, skip);
    deps.errorHandler(error, adopted.req, adopted.res, skip);
  };
  const serveLean = (request: IncomingMessage, res: ServerResponse, match: LeanMatch): void => {
    const req: LeanRequest = request;
    // Elasticsearch clients refuse any response without this header (app.ts).
    res.setHeader('X-Elastic-Product', 'Elasticsearch');
    req.id = resolveRequestId(headerValue(req.headers['x-request-id']));
    res.setHeader('x-request-id', req.id);
    const opaqueId = req.headers['x-opaque-id'];
    if (typeof opaqueId === 'string') res.setHeader('X-Opaque-Id', opaqueId);
    req.baseUrl = '';
    req.route = { path: match.index === undefined ? '/_search' : '/:index/_search' };
    deps.accessLog(req as Request, res as Response, skip);
    deps.metrics(req as Request, res as Response, skip);
    serve(req, res, match)
      .then((result) => {
        const text = stringifyWithRaw(result);
        res.writeHead(200, {
          'Content-Type': 'application/json; charset=UTF-8',
          'Content-Length': Buffer.byteLength(text),
        });
        res.end(text);
      })
      .catch((error: unknown) => fail(req, res, error));
  };
  serveBeforeExpress(app, [frontRoute({ match: leanSearchPath, serve: serveLean })]);

  async function serve(req: LeanRequest, res: ServerResponse, match: LeanMatch): Promise<unknown> {
    const gone = clientGoneSignal(res);
    await authenticate(req, res, match);
    const text = await readBody(req, match.length, deps.maxBytes);
    let body: unknown;
    if (text.trim() !== '') {
      parseJsonText(text); // malformed JSON: readJsonBody's errors
      body = parseJsonWithLocations(text);
    }
    return deps.run({ index: match.index, ignoreUnavailable: false }, body, {}, gone);
  }

  /**
   * deps.authenticate, then the search route's scope check, with what they read of a request
   * (express's req.path, req.get, req.params, …).
   */
  async function authenticate(req: LeanRequest, res: ServerResponse, match: LeanMatch): Promise<void> {
    const view = {
      method: req.method,
      url: req.url,
      originalUrl: req.url,
      path: match.path,
      params: match.index === undefined ? {} : { index: match.index },
      headers: req.headers,
      id: req.id,
      get: (name: string) => headerValue(req.headers[name.toLowerCase()]),
    } as unknown as Request;
    for (const step of [deps.authenticate, checkScope]) {
      await new Promise<void>((resolve, reject) => {
        const next = (error?: unknown) => (error ? reject(error) : resolve());
        Promise.resolve(step(view, res as Response, next)).catch(reject);
      });
    }
  }
}

interface LeanMatch {
  path: string;
  /** The index expression, decoded as express decodes route parameters; undefined for /_search. */
  index: string | undefined;
  length: number;
}

function leanSearchPath(req: IncomingMessage): LeanMatch | undefined {
  const url = req.url;
  if (req.method !== 'POST' || url === undefined || url.includes('?')) return undefined;
  const path = SEARCH_PATH.exec(url);
  if (!path) return undefined;
  const { headers } = req;
  const length = Number(headers['content-length']);
  if (!Number.isInteger(length) || length < 0 || length > LEAN_BODY_LIMIT) return undefined;
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return undefined;
  if (length > 0 && !isJson(headers['content-type'])) return undefined;
  let index: string | undefined;
  if (path[1] !== undefined) {
    try {
      index = decodeURIComponent(path[1]);
    } catch {
      return undefined;
    }
  }
  return { path: url, index, length };
}

/** A JSON media type; anything else (refused ones included) is the express route's to answer. */
function isJson(contentType: string | undefined): boolean {
  try {
    return parseMediaType(contentType) === 'json';
  } catch {
    return false;
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The body as utf-8 (Content-Length over the limit: 413 before a byte is read, as readJsonBody). */
function readBody(req: IncomingMessage, length: number, maxBytes: number): Promise<string> {
  if (length > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
    req.on('aborted', () => reject(Object.assign(new Error('request aborted'), { status: 400 })));
    req.on('error', reject);
  });
}
