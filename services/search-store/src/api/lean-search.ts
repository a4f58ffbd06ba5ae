import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, RequestHandler, Response } from 'express';
import { frontRoute, type AnyFrontRoute, type FrontRequest } from '@acme/common';
import { parseMediaType } from '../http/media-type';
import { parseJsonText } from '../http/parse-json-text';
import { stringifyWithRaw } from '../http/raw-json';
import { tooLarge } from '../http/read-body';
import { parseJsonWithLocations } from '../query/parse/json-locations';
import { requireScope } from '../auth/route-scope';
import type { SearchRunner } from '../search/searcher';
import { SEARCH_ACCESS } from './search.route';
import { clientGoneSignal } from './client-gone';
import { contextUserOf } from '../auth/context-user';

/** Larger bodies (a search is rarely more than a few kB) take the express route. */
const LEAN_BODY_LIMIT = 1024 * 1024;
const SEARCH_PATH = /^\/(?:([^/]+)\/)?_search$/;

export interface LeanSearchDeps {
  run: SearchRunner;
  /** The app's authentication, given an object with what it reads of a request; the scope check follows. */
  authenticate: RequestHandler;
  maxBytes: number;
}

/**
 * `POST /_search` and `POST /<index>/_search` in front of express, for the usual request: no query
 * string, a JSON body of known length, no content encoding; a front route of @acme/common's
 * frontHandler (issue 19). The search itself is a single statement when the fast path answers from
 * its cache (search/fast-match), ~0.3 ms; express's machinery around it (its prototype swap, ten
 * middleware layers and the router, a stream iterator for the body, res.json) cost about as much
 * again, profiled. This route takes the same steps as the express route, in the same order: the
 * prelude (X-Elastic-Product, request id, access line, metrics under the route's pattern) in
 * frontHandler, X-Opaque-Id, authentication with req.ip as express computes it, the route's scope
 * (SEARCH_ACCESS), and only then the body, read and parsed as readJsonBody and searchBodyOf do
 * (errors with line and column), and the same runner (createSearchRunner). Errors go to the app's
 * error handler, which writes the same envelope. Anything else (query parameters, GET, chunked or
 * encoded bodies, other media types) goes to the express route.
 */
export function searchFrontRoute(app: Express, deps: LeanSearchDeps): AnyFrontRoute {
  const checkScope = requireScope(SEARCH_ACCESS);
  return frontRoute({
    match: leanSearchPath,
    route: (match) => (match.index === undefined ? '/_search' : '/:index/_search'),
    async serve(req, res, match) {
      // Elasticsearch echoes X-Opaque-Id (http/format-response.ts does on the express path).
      const opaqueId = req.headers['x-opaque-id'];
      if (typeof opaqueId === 'string') res.setHeader('X-Opaque-Id', opaqueId);
      const gone = clientGoneSignal(res);
      const user = await authenticate(req, res, match);
      const text = await readBody(req, match.length, deps.maxBytes);
      let body: unknown;
      if (text.trim() !== '') {
        parseJsonText(text); // malformed JSON: readJsonBody's errors
        body = parseJsonWithLocations(text);
      }
      const result = await deps.run({ index: match.index, ignoreUnavailable: false }, body, {}, gone, user);
      const answer = stringifyWithRaw(result);
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=UTF-8',
        'Content-Length': Buffer.byteLength(answer),
      });
      res.end(answer);
    },
  });

  /**
   * deps.authenticate, then the search route's scope check, on a request object of express's own
   * prototype made for them, so req.path, req.get and req.ip (trust proxy included) are express's
   * getters, as on the express route; node's request keeps its prototype (the cost this path avoids).
   */
  /** Answers the caller, the owner of a PIT the search reads (auth/context-user.ts). */
  async function authenticate(
    req: FrontRequest,
    res: ServerResponse,
    match: LeanMatch,
  ): Promise<string | undefined> {
    const view: Request = Object.assign(Object.create(app.request) as Request, {
      method: req.method,
      url: req.url,
      originalUrl: req.url,
      headers: req.headers,
      socket: req.socket,
      params: match.index === undefined ? {} : { index: match.index },
      id: req.id,
    });
    for (const step of [deps.authenticate, checkScope]) {
      await new Promise<void>((resolve, reject) => {
        const next = (error?: unknown) => (error ? reject(error) : resolve());
        Promise.resolve(step(view, res as Response, next)).catch(reject);
      });
    }
    return contextUserOf(view.principal);
  }
}

interface LeanMatch {
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
  return { index, length };
}

/** A JSON media type; anything else (refused ones included) is the express route's to answer. */
function isJson(contentType: string | undefined): boolean {
  try {
    return parseMediaType(contentType) === 'json';
  } catch {
    return false;
  }
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
