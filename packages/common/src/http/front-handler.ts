import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import { adoptExpressObjects } from './adopt-express-objects';
import type { RequestPrelude } from './request-prelude';

/** A request a front route took: node's own object, with the id the prelude gave it. */
export type FrontRequest = IncomingMessage & { id: string };

/**
 * A hot route answered on node's own request and response, before express. `match` says whether the
 * request is the usual one the route takes (method, path, body shape) and returns what the route
 * needs of it; anything it declines goes to express unchanged. `route` is the pattern express matches
 * the same request with (metrics, access line). A rejected `serve` goes to the app's error handler.
 */
export interface FrontRoute<Match> {
  match(req: IncomingMessage): Match | undefined;
  route(match: Match): string;
  serve(req: FrontRequest, res: ServerResponse, match: Match): Promise<void>;
}

/** A front route with its Match type erased, so routes of different types share one list. */
export interface AnyFrontRoute {
  take(
    req: IncomingMessage,
  ): { route: string; serve(req: FrontRequest, res: ServerResponse): Promise<void> } | undefined;
}

export function frontRoute<Match>(route: FrontRoute<Match>): AnyFrontRoute {
  return {
    take(req) {
      const match = route.match(req);
      if (match === undefined) return undefined;
      return { route: route.route(match), serve: (front, res) => route.serve(front, res, match) };
    },
  };
}

/** The service's node request listener: front routes first, express for everything else. */
export interface FrontHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The express app behind the front routes. */
  readonly express: Express;
  /** http.createServer(this).listen(port, host): what express's app.listen does, with this listener. */
  listen(port: number, host: string, onListening?: () => void): Server;
}

export interface FrontHandlerOptions {
  /** The same prelude the express app runs first (request id, headers, access line, metrics). */
  prelude: RequestPrelude;
  routes: readonly AnyFrontRoute[];
  /** The express app's last handler: a front route's error is answered in the same envelope. */
  errorHandler: ErrorRequestHandler;
  /** Synchronous steps express runs on every request before its error handler could (response formatting). */
  beforeError?: readonly RequestHandler[];
}

/**
 * Issue 19: one typed front handler on the node http server, used by both services' hot paths
 * (auth-server's /token_info, search-store's _search). Express's own entry swaps express's prototypes
 * onto node's request and response before its stack runs, which costs more than a whole plain node
 * answer on these paths; a front route answers on node's objects instead, after the same prelude as
 * the express stack. Only an error takes express's objects (adoptExpressObjects), so the app's own
 * error handler writes the envelope. Each front route runs authentication in the same order as the
 * express route it stands for; the shared-behaviour tests of each service run both paths.
 */
export function frontHandler(app: Express, options: FrontHandlerOptions): FrontHandler {
  const { prelude, routes, errorHandler, beforeError = [] } = options;
  const skip = () => undefined;
  const fail = (req: FrontRequest, res: ServerResponse, error: unknown) => {
    if (res.headersSent) return void res.destroy();
    const adopted = adoptExpressObjects(app, req, res);
    for (const step of beforeError) void step(adopted.req, adopted.res, skip);
    errorHandler(error, adopted.req, adopted.res, skip);
  };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    for (const route of routes) {
      const taken = route.take(req);
      if (taken === undefined) continue;
      const front: FrontRequest = Object.assign(req, { id: prelude.start(req, res, taken.route) });
      let served: Promise<void>;
      try {
        served = taken.serve(front, res);
      } catch (error) {
        served = Promise.reject(error);
      }
      served.catch((error: unknown) => fail(front, res, error));
      return;
    }
    app(req, res);
  };
  return Object.assign(handler, {
    express: app,
    listen: (port: number, host: string, onListening?: () => void) =>
      createServer(handler).listen(port, host, onListening),
  });
}
