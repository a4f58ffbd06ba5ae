import { type Router, type Request, type Response } from 'express';
import { checkDeclaredLength } from '../../http/read-body';
import { readLines } from '../../http/read-lines';
import { parseBooleanParam } from '../../http/query-params';
import type { StoreDeps } from '../store-deps';
import { executeWrites } from '../../write/execute-writes';
import type { WriteResult } from '../../write/write-op';
import { refreshOf } from '../write-params';
import { parseBulk, type BulkItem } from './parse-bulk';
import { checkParams } from '../../http/check-params';
import { ROUTE_PARAMS } from '../route-params';
import { scopedRouter } from '../../http/scoped-router';

/**
 * Items per transaction: big enough for set-based writes, small enough to keep locks short and memory
 * bounded. Much of a batch's write cost is per distinct term (dictionary update, tail probe and append),
 * so bigger batches amortise it. With the writer's flat arrays (index/batch-analyzer.ts) 5,000-document
 * bulks of Brown paragraphs peak at ~380 MB RSS with 5,000 (the 512 MB budget of issue 6; 581 MB before).
 */
const BATCH_SIZE = 5000;

/**
 * POST /_bulk and /<index>/_bulk (ES "Bulk API"): the NDJSON body is read as a stream and parsed
 * completely first (a syntax error rejects the whole request, as in Elasticsearch); then items run in
 * batches, each batch one transaction in which only valid items are written. Always 200, with
 * per-item results and `errors`.
 */
export function bulkRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  const bulk = async (req: Request, res: Response) => {
    const started = Date.now();
    const refresh = refreshOf(req);
    checkDeclaredLength(req, deps.config.MAX_REQUEST_BYTES);
    const items = await parseBulk(
      readLines(req, deps.config.MAX_REQUEST_BYTES),
      req.params.index as string | undefined,
      parseBooleanParam(req.query.require_alias, 'require_alias', false),
    );
    const results: Record<string, unknown>[] = [];
    for (let start = 0; start < items.length; start += BATCH_SIZE) {
      const batch = items.slice(start, start + BATCH_SIZE);
      const runnable = batch.filter((item) => !item.error);
      const written = await executeWrites(
        deps,
        runnable.map((item) => item.op),
        { refresh },
      );
      let next = 0;
      for (const item of batch) {
        results.push(item.error ? itemFailure(item) : toItem(item, written[next++] as WriteResult));
      }
    }
    res.json({
      errors: results.some((r) =>
        Object.values(r).some((v) => (v as Record<string, unknown>).error !== undefined),
      ),
      took: Date.now() - started,
      items: results,
    });
  };
  const params = checkParams(ROUTE_PARAMS.bulk);
  route('POST', '/_bulk', 'search.write', 'indices:data/write/bulk', params, bulk);
  route('PUT', '/_bulk', 'search.write', 'indices:data/write/bulk', params, bulk);
  route('POST', '/:index/_bulk', 'search.write', 'indices:data/write/bulk', params, bulk);
  route('PUT', '/:index/_bulk', 'search.write', 'indices:data/write/bulk', params, bulk);
  return router;
}

function itemFailure(item: BulkItem): Record<string, unknown> {
  const error = item.error;
  return {
    [item.action]: {
      _index: item.op.index,
      _id: item.op.id ?? null,
      status: error?.status ?? 400,
      error: error?.toCause(),
    },
  };
}

/** A bulk item: the write's body plus `status`; failures carry `error` without root_cause. */
function toItem(item: BulkItem, result: WriteResult): Record<string, unknown> {
  if (result.ok) return { [item.action]: { ...result.body, status: result.status } };
  return {
    [item.action]: {
      _index: result.index,
      _id: result.id ?? null,
      status: result.status,
      error: result.error.toCause(),
    },
  };
}
