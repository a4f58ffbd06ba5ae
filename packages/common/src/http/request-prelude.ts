import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { assignRequestId } from './request-id';
import { routePattern } from './route-pattern';

/** What an observer learns of a request when it arrives; `route` is read once the response finishes. */
export interface RequestSeen {
  requestId: string;
  /** The route pattern (`/:index/_search`), never the raw path (route-pattern.ts). */
  route(): string;
}

/** Watches one request to its end on node's objects (access line, metrics): access-log.ts, metrics.ts. */
export type RequestObserver = (req: IncomingMessage, res: ServerResponse, seen: RequestSeen) => void;

/**
 * The first steps of every request, whichever path answers it (issue 19): the headers every answer
 * carries, the request id (read from x-request-id or new, echoed), then the observers. Express runs
 * `middleware` first in its stack; the front handler (front-handler.ts) calls `start` with the pattern
 * express would have matched, so both paths label, log and count a request alike.
 */
export interface RequestPrelude {
  middleware: RequestHandler;
  /** The prelude for a request answered outside express under route pattern `route`; returns its id. */
  start(req: IncomingMessage, res: ServerResponse, route: string): string;
}

export function requestPrelude(options: {
  /** Headers set on every answer before anything else (search-store: X-Elastic-Product). */
  headers?: Readonly<Record<string, string>>;
  observers: readonly RequestObserver[];
}): RequestPrelude {
  const headers = Object.entries(options.headers ?? {});
  const { observers } = options;
  const begin = (req: IncomingMessage, res: ServerResponse, route: () => string): string => {
    for (const [name, value] of headers) res.setHeader(name, value);
    const requestId = assignRequestId(req, res);
    for (const observe of observers) observe(req, res, { requestId, route });
    return requestId;
  };
  return {
    middleware: (req, res, next) => {
      req.id = begin(req, res, () => routePattern(req));
      next();
    },
    start: (req, res, route) => begin(req, res, () => route),
  };
}
