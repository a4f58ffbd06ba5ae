import { EsError } from '@acme/common';
import { type Router, type Request, type Response } from 'express';
import type { Pool } from 'pg';
import { analyzeText } from '../catalog/analyze-text';
import { queryParams, searchBodyOf } from './search-body';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

type Json = Record<string, unknown>;

/**
 * GET|POST /_analyze and /<index>/_analyze: `{tokens:[{token, start_offset, end_offset, type, position}]}`.
 * As in Elasticsearch 8 (indices.analyze.json), the request is the body; the only URL parameter is
 * `index` (the path's alternative), so `?text=` is refused like any unknown parameter.
 */
export function analyzeRouter(deps: { pool: Pool }): Router {
  const { router, route } = scopedRouter();
  const handle = async (req: Request, res: Response): Promise<void> => {
    const raw = searchBodyOf(req, res);
    const params = queryParams(req);
    const body: Json = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Json) : {};
    const text = body.text;
    if (text === undefined || (Array.isArray(text) && text.length === 0)) {
      throw new EsError('action_request_validation_exception', 'Validation Failed: 1: text is missing;');
    }
    const indexName = (req.params.index as string | undefined) ?? params.index;
    const values = (Array.isArray(text) ? text : [text]).map(String);
    const tokens = (await analyzeText(deps.pool, indexName, body, values)).map((t) => ({
      token: t.term,
      start_offset: t.startOffset,
      end_offset: t.endOffset,
      type: t.type,
      position: t.position,
    }));
    res.json({ tokens });
  };
  const allowed = checkParams(ROUTE_PARAMS.analyze);
  route(['GET', 'POST'], '/_analyze', 'search.read', 'indices:admin/analyze', allowed, handle);
  route(['GET', 'POST'], '/:index/_analyze', 'search.read', 'indices:admin/analyze', allowed, handle);
  return router;
}
