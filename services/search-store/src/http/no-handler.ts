import type { RequestHandler } from 'express';

/** What Elasticsearch answers for a path no API serves: 400 with a bare string error. */
export function noHandler(): RequestHandler {
  return (req, res) => {
    res.status(400).json({
      error: `no handler found for uri [${req.originalUrl.split('?')[0]}] and method [${req.method}]`,
      status: 400,
    });
  };
}
