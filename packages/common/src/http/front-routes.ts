import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/**
 * A hot route answered on node's own request and response, before express (issue 19). `match`
 * says whether this request is the usual one the route takes (method, path, body shape) and returns
 * what the route needs from it; anything it declines goes to express unchanged.
 */
export interface FrontRoute<Match> {
  match(req: IncomingMessage): Match | undefined;
  serve(req: IncomingMessage, res: ServerResponse, match: Match): void;
}

/** Erases a route's Match type so routes of different types share one list. */
export interface AnyFrontRoute {
  tryServe(req: IncomingMessage, res: ServerResponse): boolean;
}

export function frontRoute<Match>(route: FrontRoute<Match>): AnyFrontRoute {
  return {
    tryServe(req, res) {
      const match = route.match(req);
      if (match === undefined) return false;
      route.serve(req, res, match);
      return true;
    },
  };
}

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: unknown) => void;

/**
 * Puts `routes` in front of the app's own request pipeline. Express's app.handle is the one entry
 * of every request (http.createServer(app), supertest, app.listen all call it), and it swaps
 * express's prototypes onto node's objects before its stack runs, which costs more than a whole
 * plain node answer; wrapping it is the one place that reaches express's internals, so both
 * services' hot paths (auth-server's /token_info, search-store's _search) install here.
 */
export function serveBeforeExpress(app: Express, routes: readonly AnyFrontRoute[]): void {
  const entry: { handle: Handle } = app as unknown as { handle: Handle };
  const handleInExpress = entry.handle.bind(app);
  entry.handle = (req, res, callback) => {
    for (const route of routes) if (route.tryServe(req, res)) return;
    handleInExpress(req, res, callback);
  };
}
