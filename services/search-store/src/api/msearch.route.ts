import { type Router, type Request, type Response } from 'express';
import { checkDeclaredLength } from '../http/read-body';
import { readLines } from '../http/read-lines';
import { checkParams } from '../http/check-params';
import { scopedRouter } from '../http/scoped-router';
import { multiSearch } from '../search/multi-search';
import { createSearchRunner, type SearcherDeps } from '../search/searcher';
import { contextUserOf } from '../auth/context-user';
import { clientGoneSignal } from './client-gone';
import { maxConcurrentSearches, parseMsearch } from './parse-msearch';
import { ROUTE_PARAMS } from './route-params';
import { queryParams } from './search-body';

/**
 * GET|POST /_msearch and /<index>/_msearch (ES "Multi search API"): the NDJSON body is read as a stream
 * (the _bulk line reader), every search is parsed before any runs, then 200 with `responses`, each a
 * search answer or its own error, both with `status`.
 */
export function msearchRouter(deps: SearcherDeps, maxBytes: number): Router {
  const { router, route } = scopedRouter();
  const run = createSearchRunner(deps);
  const msearch = async (req: Request, res: Response) => {
    const started = Date.now();
    const params = queryParams(req);
    const concurrency = maxConcurrentSearches(params.max_concurrent_searches);
    checkDeclaredLength(req, maxBytes);
    const items = await parseMsearch(
      readLines(req, maxBytes),
      req.params.index as string | undefined,
      params,
    );
    // Each search runs as the caller (the owner of a PIT it reads).
    const user = contextUserOf(req.principal);
    const runAs: typeof run = (target, body, itemParams, gone) => run(target, body, itemParams, gone, user);
    const responses = await multiSearch(runAs, items, concurrency, clientGoneSignal(res));
    res.json({ took: Date.now() - started, responses });
  };
  const checked = checkParams(ROUTE_PARAMS.msearch);
  route(['GET', 'POST'], '/_msearch', 'search.read', 'indices:data/read/msearch', checked, msearch);
  route(['GET', 'POST'], '/:index/_msearch', 'search.read', 'indices:data/read/msearch', checked, msearch);
  return router;
}
