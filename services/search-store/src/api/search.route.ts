import { Router, type Request, type Response } from 'express';
import type { Pool } from 'pg';
import { executeCount, executeSearch } from '../query/execute-search';
import { openIndexReaders } from '../query/index-reader';
import { parseSearchRequest } from '../query/search-request';
import type { SearchSeams } from '../query/search-seams';
import { ShardQueryError, toSearchPhaseError } from '../query/shard-query-error';
import { queryParams, searchBodyOf } from './search-body';
import { resolveSearchIndices } from './search-index-resolver';

export interface SearchRouteDeps {
  pool: Pool;
  seams?: SearchSeams;
}

/** GET|POST /_search, /<index>/_search, /_count, /<index>/_count (ES search and count APIs). */
export function searchRouter(deps: SearchRouteDeps): Router {
  const router = Router();

  const search = async (req: Request, res: Response): Promise<void> => {
    const started = Date.now();
    const params = queryParams(req);
    const request = parseSearchRequest(searchBodyOf(req, res), params);
    const indices = await resolveSearchIndices(deps.pool, req.params.index as string | undefined, {
      ignoreUnavailable: params.ignore_unavailable === 'true',
    });
    const readers = await openIndexReaders(deps.pool, indices);
    try {
      res.json(await executeSearch(deps.pool, readers, request, deps.seams, started));
    } catch (error) {
      if (error instanceof ShardQueryError)
        throw toSearchPhaseError(
          error,
          readers.map((r) => r.name),
        );
      throw error;
    }
  };

  const count = async (req: Request, res: Response): Promise<void> => {
    const params = queryParams(req);
    const request = parseSearchRequest(searchBodyOf(req, res), params, true);
    const indices = await resolveSearchIndices(deps.pool, req.params.index as string | undefined, {
      ignoreUnavailable: params.ignore_unavailable === 'true',
    });
    const readers = await openIndexReaders(deps.pool, indices);
    try {
      const n = await executeCount(deps.pool, readers, request);
      res.json({
        count: n,
        _shards: { total: readers.length, successful: readers.length, skipped: 0, failed: 0 },
      });
    } catch (error) {
      if (error instanceof ShardQueryError)
        throw toSearchPhaseError(
          error,
          readers.map((r) => r.name),
        );
      throw error;
    }
  };

  router.route('/_search').get(search).post(search);
  router.route('/:index/_search').get(search).post(search);
  router.route('/_count').get(count).post(count);
  router.route('/:index/_count').get(count).post(count);
  return router;
}
