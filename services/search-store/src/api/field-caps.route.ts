import { type Request, type Response, type Router } from 'express';
import { EsError, newDictionary } from '@acme/common';
import { fieldCaps } from '../catalog/field-caps';
import { parseExpandWildcards } from '../catalog/index-expression';
import { checkParams } from '../http/check-params';
import { parseBooleanParam, stringParam } from '../http/query-params';
import { scopedRouter } from '../http/scoped-router';
import { locationOf } from '../query/parse/json-locations';
import { ROUTE_PARAMS } from './route-params';
import { searchBodyOf } from './search-body';
import type { StoreDeps } from './store-deps';

const list = (value: string | undefined): string[] =>
  value === undefined || value === '' ? [] : value.split(',').map((s) => s.trim());

/** The body's field list: a string array (ObjectParser also takes one string). */
function bodyFields(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  if (!values.every((v) => typeof v === 'string')) {
    throw new EsError('x_content_parse_exception', '[field_caps_request] failed to parse field [fields]');
  }
  return values as string[];
}

/** GET|POST [/<index>]/_field_caps (ES "Field capabilities API"). */
export function fieldCapsRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  const handler = async (req: Request, res: Response) => {
    const body = searchBodyOf(req, res);
    let fields = list(stringParam(req.query.fields));
    let runtimeMappings: Record<string, unknown> = newDictionary<unknown>();
    if (body !== undefined) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new EsError('parsing_exception', 'request body must be an object');
      }
      const object = body as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        if (key === 'fields' || key === 'runtime_mappings') continue;
        const at = locationOf(object, key);
        if (key === 'index_filter') {
          // ES drops the indices whose shards the filter rewrites to match_none; not done here yet.
          throw new EsError('illegal_argument_exception', '[index_filter] is not supported by search-store');
        }
        throw new EsError(
          'x_content_parse_exception',
          `[${at?.line ?? 1}:${at?.col ?? 1}] [field_caps_request] unknown field [${key}]`,
        );
      }
      const fromBody = object.fields === undefined ? [] : bodyFields(object.fields);
      // RestFieldCapabilitiesAction: fields from the body or the parameter, never both.
      if (req.query.fields !== undefined && fromBody.length > 0) {
        throw new EsError(
          'illegal_argument_exception',
          "can't specify a request body and [fields] request parameter, either specify a request body or the [fields] parameter",
        );
      }
      if (fromBody.length > 0) fields = fromBody;
      const runtime = object.runtime_mappings;
      if (runtime !== undefined) {
        if (typeof runtime !== 'object' || runtime === null || Array.isArray(runtime)) {
          throw new EsError(
            'x_content_parse_exception',
            '[field_caps_request] failed to parse field [runtime_mappings]',
          );
        }
        runtimeMappings = runtime as Record<string, unknown>;
      }
    }
    // include_empty_fields (8.13): read for its syntax; every mapped field is reported, as with `true`.
    parseBooleanParam(req.query.include_empty_fields, 'include_empty_fields', true);
    const result = await fieldCaps(deps.pool, {
      expression: (req.params.index as string | undefined) ?? '_all',
      // FieldCapabilitiesRequest: strictExpandOpenAndForbidClosed unless asked otherwise.
      resolve: {
        ignoreUnavailable: parseBooleanParam(req.query.ignore_unavailable, 'ignore_unavailable', false),
        allowNoIndices: parseBooleanParam(req.query.allow_no_indices, 'allow_no_indices', true),
        expandWildcards: parseExpandWildcards(req.query.expand_wildcards, {
          open: true,
          closed: false,
          hidden: false,
        }),
      },
      fields,
      includeUnmapped: parseBooleanParam(req.query.include_unmapped, 'include_unmapped', false),
      filters: list(stringParam(req.query.filters)),
      types: list(stringParam(req.query.types)),
      runtimeMappings,
    });
    res.json(result);
  };
  const params = checkParams(ROUTE_PARAMS.fieldCaps);
  const action = 'indices:data/read/field_caps';
  route(['GET', 'POST'], '/_field_caps', 'search.read', action, params, handler);
  route(['GET', 'POST'], '/:index/_field_caps', 'search.read', action, params, handler);
  return router;
}
