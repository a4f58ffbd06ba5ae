import type { RequestHandler } from 'express';
import type { Logger } from '../logging/create-logger';
import { routePattern } from './route-pattern';

/** One access line per request: method, route pattern, status, duration and request id (no query, no headers). */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    // Below info (LOG_LEVEL=warn in production) the line would be formatted and then dropped: skip the
    // finish listener, the timer and the route lookup entirely.
    if (!logger.isInfoEnabled()) {
      next();
      return;
    }
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - start) / 1e6;
      logger.info('request', {
        kind: 'access',
        method: req.method,
        route: routePattern(req),
        status: res.statusCode,
        durationMs: Math.round(durationMs * 100) / 100,
        requestId: req.id,
      });
    });
    next();
  };
}
