import type { RequestHandler } from 'express';
import type { Logger } from '../logging/create-logger';
import type { RequestObserver } from './request-prelude';
import { routePattern } from './route-pattern';

/**
 * One access line per request: method, route pattern, status, duration and request id (no query, no
 * headers), written when the response finishes. An observer on node's objects, so express's stack
 * and the front handler (request-prelude.ts) write the same line.
 */
export function accessLine(logger: Logger): RequestObserver {
  return (req, res, seen) => {
    // Below info (LOG_LEVEL=warn in production) the line would be formatted and then dropped: skip the
    // finish listener, the timer and the route lookup entirely.
    if (!logger.isInfoEnabled()) return;
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - start) / 1e6;
      logger.info('request', {
        kind: 'access',
        method: req.method,
        route: seen.route(),
        status: res.statusCode,
        durationMs: Math.round(durationMs * 100) / 100,
        requestId: seen.requestId,
      });
    });
  };
}

/** accessLine as express middleware, after requestId(). */
export function accessLog(logger: Logger): RequestHandler {
  const observe = accessLine(logger);
  return (req, res, next) => {
    observe(req, res, { requestId: req.id, route: () => routePattern(req) });
    next();
  };
}
