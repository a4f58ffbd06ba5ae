import { type Router, type Request, type Response } from 'express';
import { EsError } from '@acme/common';
import type { JsonBodyLocals } from '../http/read-body';
import { bodyObject } from '../http/read-body';
import { getDocument } from '../write/get-document';
import { renderFoundDocument, sourceView } from './render-document';
import { sourceAsked, sourceParams, storedFieldNames } from './source-params';
import { storedFieldsOfDocument } from '../search/hits/stored-field-values';
import type { StoreDeps } from './store-deps';
import { executeWrites } from '../write/execute-writes';
import type { WriteOp, WriteResult } from '../write/write-op';
import { parseConditions, parseOpType, parseReadVersion, refreshOf } from './write-params';
import { checkParams } from '../http/check-params';
import { parseBooleanParam } from '../http/query-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/**
 * Single-document APIs (ES "Document APIs"): index (PUT/POST `_doc`, `_create`), get, exists (HEAD),
 * get source, delete and update. Writes go through the batch writer with one op.
 */
export function documentsRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const write = async (req: Request, res: Response, op: WriteOp) => {
    const requireAlias = parseBooleanParam(req.query.require_alias, 'require_alias', false);
    const [result] = await executeWrites(deps, [{ ...op, requireAlias }], { refresh: refreshOf(req) });
    sendWriteResult(res, result as WriteResult);
  };

  const indexDocument = (forceCreate: boolean) => async (req: Request, res: Response) => {
    const id = req.params.id as string | undefined;
    const kind = forceCreate ? 'create' : parseOpType(req.query.op_type, id !== undefined);
    if (req.body === undefined) {
      throw new EsError(
        'action_request_validation_exception',
        'Validation Failed: 1: source is missing;2: content type is missing;',
      );
    }
    await write(req, res, {
      kind,
      index: req.params.index as string,
      id,
      source: req.body as unknown,
      sourceText: (res.locals as JsonBodyLocals).rawBody,
      ...parseConditions(req.query, kind === 'create'),
    });
  };

  route(
    'POST',
    '/:index/_doc',
    'search.write',
    'indices:data/write/index',
    checkParams(ROUTE_PARAMS.index),
    indexDocument(false),
  );
  route(
    'PUT',
    '/:index/_doc/:id',
    'search.write',
    'indices:data/write/index',
    checkParams(ROUTE_PARAMS.index),
    indexDocument(false),
  );
  route(
    'POST',
    '/:index/_doc/:id',
    'search.write',
    'indices:data/write/index',
    checkParams(ROUTE_PARAMS.index),
    indexDocument(false),
  );
  route(
    'PUT',
    '/:index/_create/:id',
    'search.write',
    'indices:data/write/index',
    checkParams(ROUTE_PARAMS.create),
    indexDocument(true),
  );
  route(
    'POST',
    '/:index/_create/:id',
    'search.write',
    'indices:data/write/index',
    checkParams(ROUTE_PARAMS.create),
    indexDocument(true),
  );

  route(
    'DELETE',
    '/:index/_doc/:id',
    'search.write',
    'indices:data/write/delete',
    checkParams(ROUTE_PARAMS.delete),
    async (req, res) => {
      await write(req, res, {
        kind: 'delete',
        index: req.params.index as string,
        id: req.params.id as string,
        ...parseConditions(req.query),
      });
    },
  );

  route(
    'POST',
    '/:index/_update/:id',
    'search.write',
    'indices:data/write/update',
    checkParams(ROUTE_PARAMS.update),
    async (req, res) => {
      const conditions = parseConditions(req.query);
      const source = sourceParams(req.query);
      const asked =
        req.query._source !== undefined || source.includes.length > 0 || source.excludes.length > 0;
      await write(req, res, {
        fetchSource:
          asked && source.fetch ? { includes: source.includes, excludes: source.excludes } : undefined,
        kind: 'update',
        index: req.params.index as string,
        id: req.params.id as string,
        body: bodyObject(req),
        bodyText: (res.locals as JsonBodyLocals).rawBody,
        ...conditions,
      });
    },
  );

  route(
    'GET',
    '/:index/_doc/:id',
    'search.read',
    'indices:data/read/get',
    checkParams(ROUTE_PARAMS.get),
    async (req, res) => {
      const { index, doc } = await getDocument(
        deps.pool,
        req.params.index as string,
        req.params.id as string,
        parseReadVersion(req.query),
      );
      if (!doc) {
        res.status(404).json({ _index: index.name, _id: req.params.id, found: false });
        return;
      }
      const source = sourceParams(req.query);
      const stored =
        typeof req.query.stored_fields === 'string' ? storedFieldNames(req.query.stored_fields) : undefined;
      // With stored_fields and no `_source*` parameter, ES's GET leaves `_source` out.
      const fetchSource = source.fetch && (stored === undefined || sourceAsked(req.query));
      const fields = stored ? storedFieldsOfDocument(index, doc, stored) : undefined;
      const body = renderFoundDocument(index.name, doc, fetchSource ? source : undefined, fields);
      res.json(body);
    },
  );

  route(
    'GET',
    '/:index/_source/:id',
    'search.read',
    'indices:data/read/get',
    checkParams(ROUTE_PARAMS.getSource),
    async (req, res) => {
      const { index, doc } = await getDocument(
        deps.pool,
        req.params.index as string,
        req.params.id as string,
        parseReadVersion(req.query),
      );
      if (!doc) {
        throw new EsError(
          'resource_not_found_exception',
          `Document not found [${index.name}]/[${req.params.id}]`,
        );
      }
      const source = sourceParams(req.query);
      res.json(sourceView(doc, source.includes, source.excludes));
    },
  );

  return router;
}

/** A single write answers the item body, or the item's error in the envelope. */
function sendWriteResult(res: Response, result: WriteResult): void {
  if (!result.ok) throw result.error;
  if (result.status === 201) {
    res.setHeader(
      'Location',
      `/${encodeURIComponent(String(result.body._index))}/_doc/${encodeURIComponent(String(result.body._id))}`,
    );
  }
  res.status(result.status).json(result.body);
}
