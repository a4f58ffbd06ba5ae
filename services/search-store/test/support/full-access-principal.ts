import type { RequestHandler } from 'express';

/**
 * For suites that test search-store's Elasticsearch APIs rather than its authentication (which the
 * suites under test/auth cover with the production middleware and a real auth-server): every request
 * acts as a principal holding all three search scopes.
 */
export const fullAccessPrincipal: RequestHandler = (req, _res, next) => {
  req.principal = {
    subject: 'test-suite',
    clientId: 'test-suite',
    scopes: ['search.read', 'search.write', 'search.admin'],
    audience: ['search-store'],
    source: 'introspection',
  };
  next();
};
