import { EsError } from '@acme/common';
import { parseBooleanParam, stringParam } from '../../http/query-params';
import { parseQuery } from '../../query/parse/parse-query';
import type { Query } from '../../query/query-ast';

/** The script of an `_update_by_query` (inline only: there are no stored scripts here). */
export interface ByQueryScript {
  source: string;
  params: Record<string, unknown>;
}

export interface ByQueryRequest {
  kind: 'delete' | 'update';
  /** The target expression: names, wildcards, aliases, `_all`. */
  indices: string;
  ignoreUnavailable: boolean;
  allowNoIndices: boolean;
  /** Absent: every document (match_all). */
  query?: Query;
  maxDocs?: number;
  proceedOnConflicts: boolean;
  /** Documents per batch (`scroll_size`, default 1000: ES's scroll size for by-query). */
  batchSize: number;
  /** `requests_per_second`; `Infinity` when unthrottled (-1). */
  requestsPerSecond: number;
  script?: ByQueryScript;
  /** `version=true`: scripts see the document's version as `ctx._version` (-1 otherwise). */
  version: boolean;
  refresh: boolean;
}

/** ES AbstractBulkByScrollRequest.DEFAULT_SCROLL_SIZE. */
const DEFAULT_BATCH = 1000;
/** index.max_result_window: a scroll page larger than this is refused by Elasticsearch's search. */
const MAX_BATCH = 10_000;

/** The body keys each API reads (ES RestDeleteByQueryAction / RestUpdateByQueryAction). */
const BODY_KEYS = {
  delete: new Set(['query', 'max_docs', 'size', 'conflicts', 'slice']),
  update: new Set(['query', 'max_docs', 'size', 'conflicts', 'slice', 'script']),
};

function validationFailed(message: string): EsError {
  return new EsError('action_request_validation_exception', `Validation Failed: 1: ${message};`);
}

function tokenName(value: unknown): string {
  if (Array.isArray(value)) return 'START_ARRAY';
  if (value !== null && typeof value === 'object') return 'START_OBJECT';
  if (typeof value === 'string') return 'VALUE_STRING';
  if (typeof value === 'number') return 'VALUE_NUMBER';
  if (typeof value === 'boolean') return 'VALUE_BOOLEAN';
  return 'VALUE_NULL';
}

/**
 * Reads `POST /<index>/_delete_by_query` and `_update_by_query` (ES "Delete by query API", "Update by
 * query API"): URL parameters first, then the body, with Elasticsearch's messages for bad values (its
 * REST tests delete_by_query/20_validation.yml and update_by_query/20_validation.yml).
 */
export function parseByQueryRequest(
  kind: 'delete' | 'update',
  indices: string,
  params: Record<string, unknown>,
  body: Record<string, unknown> | undefined,
): ByQueryRequest {
  if (kind === 'delete' && (body === undefined || body.query === undefined)) {
    if (body?.stored_fields !== undefined) throw storedFields();
    throw validationFailed('query is missing');
  }
  const given = body ?? {};
  if (given.stored_fields !== undefined) throw storedFields();
  for (const key of Object.keys(given)) {
    if (!BODY_KEYS[kind].has(key)) {
      throw new EsError('parsing_exception', `Unknown key for a ${tokenName(given[key])} in [${key}].`);
    }
  }
  if (stringParam(params.q) !== undefined) {
    throw new EsError('illegal_argument_exception', '[q] is not supported here: send a query in the body');
  }
  const query = given.query === undefined ? undefined : parseQuery(given.query, given, 'query');
  const maxDocs = parseMaxDocs(params.max_docs, given.max_docs ?? given.size);
  const slices = parseSlices(stringParam(params.slices));
  if (maxDocs !== undefined && slices > 1 && maxDocs < slices) {
    throw validationFailed('[max_docs] should be >= [slices]');
  }
  if (slices > 1 || given.slice !== undefined) {
    throw new EsError(
      'illegal_argument_exception',
      'slicing is not supported: every index has one shard, use [slices=1] or [slices=auto]',
    );
  }
  return {
    kind,
    indices,
    ignoreUnavailable: parseBooleanParam(params.ignore_unavailable, 'ignore_unavailable', false),
    allowNoIndices: parseBooleanParam(params.allow_no_indices, 'allow_no_indices', true),
    query: query?.kind === 'match_all' ? undefined : query,
    maxDocs,
    proceedOnConflicts: parseConflicts(given.conflicts ?? stringParam(params.conflicts) ?? 'abort'),
    batchSize: parseBatchSize(stringParam(params.scroll_size)),
    requestsPerSecond: parseRequestsPerSecond(stringParam(params.requests_per_second)),
    script: kind === 'update' && given.script !== undefined ? parseScript(given.script) : undefined,
    version: parseBooleanParam(params.version, 'version', false),
    refresh: parseBooleanParam(params.refresh, 'refresh', false),
  };
}

function storedFields(): EsError {
  return validationFailed('stored_fields is not supported in this context');
}

function parseConflicts(value: unknown): boolean {
  if (value !== 'abort' && value !== 'proceed') {
    throw new EsError(
      'illegal_argument_exception',
      `conflicts may only be "proceed" or "abort" but was [${String(value)}]`,
    );
  }
  return value === 'proceed';
}

/** `max_docs` from the URL wins over the body's (ES: the URL parameter is applied last). */
function parseMaxDocs(urlValue: unknown, bodyValue: unknown): number | undefined {
  const text = stringParam(urlValue);
  let value: number | undefined;
  if (text !== undefined) {
    if (!/^-?\d+$/.test(text)) {
      throw new EsError(
        'illegal_argument_exception',
        `Failed to parse int parameter [max_docs] with value [${text}]`,
      );
    }
    value = Number(text);
  } else if (bodyValue !== undefined && bodyValue !== null) {
    if (typeof bodyValue !== 'number' || !Number.isInteger(bodyValue)) {
      throw new EsError('x_content_parse_exception', '[max_docs] must be an integer');
    }
    value = bodyValue;
  }
  if (value === undefined || value === -1) return undefined;
  if (value < 0) {
    throw new EsError(
      'illegal_argument_exception',
      `[max_docs] parameter cannot be negative, found [${value}]`,
    );
  }
  if (value === 0) {
    throw validationFailed(
      "maxDocs should be greater than 0 if the request is limited to some number of documents or -1 if it isn't but it was [0]",
    );
  }
  return value;
}

function parseSlices(text: string | undefined): number {
  if (text === undefined || text === 'auto') return 1;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new EsError(
      'illegal_argument_exception',
      '[slices] must be a positive integer or the string "auto"',
    );
  }
  return Number(text);
}

function parseBatchSize(text: string | undefined): number {
  if (text === undefined) return DEFAULT_BATCH;
  if (!/^-?\d+$/.test(text)) {
    throw new EsError(
      'illegal_argument_exception',
      `Failed to parse int parameter [scroll_size] with value [${text}]`,
    );
  }
  const size = Number(text);
  if (size < 1 || size > MAX_BATCH) {
    throw new EsError(
      'illegal_argument_exception',
      `[scroll_size] must be between 1 and ${MAX_BATCH} (index.max_result_window) but was [${size}]`,
    );
  }
  return size;
}

/** ES AbstractBaseReindexRestHandler#parseRequestsPerSecond: -1 is unthrottled, else a float > 0. */
function parseRequestsPerSecond(text: string | undefined): number {
  if (text === undefined || text === '-1') return Infinity;
  const value = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new EsError(
      'illegal_argument_exception',
      '[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.',
    );
  }
  return value;
}

function parseScript(script: unknown): ByQueryScript {
  if (typeof script === 'string') return { source: script, params: {} };
  if (script === null || typeof script !== 'object' || Array.isArray(script)) {
    throw new EsError('parsing_exception', 'expected one of [START_OBJECT, VALUE_STRING] for [script]');
  }
  const spec = script as Record<string, unknown>;
  if (spec.id !== undefined) {
    throw new EsError(
      'illegal_argument_exception',
      'stored scripts are not supported: send the script [source]',
    );
  }
  if (spec.lang !== undefined && spec.lang !== 'painless') {
    throw new EsError('illegal_argument_exception', `script_lang not supported [${String(spec.lang)}]`);
  }
  if (typeof spec.source !== 'string') {
    throw new EsError(
      'illegal_argument_exception',
      'must specify either [source] for an inline script or [id] for a stored script',
    );
  }
  const params = spec.params;
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    throw new EsError('parsing_exception', '[params] must be an object');
  }
  return { source: spec.source, params: (params ?? {}) as Record<string, unknown> };
}
