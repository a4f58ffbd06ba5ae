import { EsError } from '@acme/common';
import { unknownFieldError } from '../http/unknown-field';
import { parseQuery } from '../query/parse/parse-query';
import type { Query } from '../query/query-ast';
import { parseSourceFilter } from '../query/parse/search-request';

export interface ReindexRequest {
  sourceIndex: string;
  /** `source.query`; absent (or match_all) copies every document. */
  query?: Query;
  destIndex: string;
  createOnly: boolean;
  proceedOnConflicts: boolean;
  maxDocs?: number;
  /** `source.size`: documents per batch (ES scrolls the source in batches of this size; default 1000). */
  batchSize: number;
  /** `source._source`: the copied fields; absent copies the whole source. */
  sourceFilter?: { includes: string[]; excludes: string[] };
  /** `?require_alias=true`: the destination must be an alias. */
  requireAlias?: boolean;
}

/** What the URL adds (RestReindexAction): `max_docs`, `require_alias`. */
export interface ReindexUrlOptions {
  maxDocs?: string;
  requireAlias?: boolean;
}

/** Where a body path starts, for `[line:col]` prefixes; undefined when unknown. */
export type Locate = (path: (string | number)[]) => { line: number; col: number } | undefined;

const REINDEX_FIELDS = ['source', 'dest', 'size', 'script', 'max_docs', 'conflicts'];
const DEST_FIELDS = ['index', 'routing', 'op_type', 'pipeline', 'version_type'];
/** `source` keys ReindexRequest reads itself; the rest go to the SearchSourceBuilder. */
const SOURCE_OWN_KEYS = ['index', 'remote'];
/** SearchSourceBuilder's fields (ES 8): anything else under `source` is its ParsingException. */
const SEARCH_SOURCE_KEYS = new Set([
  'query',
  'from',
  'size',
  'sort',
  '_source',
  'slice',
  'stored_fields',
  'timeout',
  'terminate_after',
  'track_total_hits',
  'track_scores',
  'min_score',
  'post_filter',
  'docvalue_fields',
  'fields',
  'script_fields',
  'explain',
  'version',
  'seq_no_primary_term',
  'search_after',
  'runtime_mappings',
  'stats',
  'profile',
  'highlight',
  'aggs',
  'aggregations',
  'collapse',
  'rescore',
  'suggest',
  'indices_boost',
  'pit',
  'knn',
  'ext',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function where(locate: Locate, path: (string | number)[]): string {
  const at = locate(path) ?? { line: 1, col: 1 };
  return `[${at.line}:${at.col}]`;
}

/**
 * ObjectParser's wrapper around a field whose value failed (ES `[reindex] failed to parse field
 * [dest]`), the cause under it: the inner error is what `root_cause` shows.
 */
function failedField(locate: Locate, field: string, cause: EsError): EsError {
  return new EsError(
    'x_content_parse_exception',
    `${where(locate, [field])} [reindex] failed to parse field [${field}]`,
    {
      causedBy: cause.toCause(),
      rootCause: [innermost(cause)],
    },
  );
}

function innermost(error: EsError): ReturnType<EsError['toCause']> {
  let cause = error.toCause();
  while (cause.caused_by) cause = cause.caused_by;
  return cause;
}

function tokenOf(value: unknown): string {
  if (isObject(value)) return 'START_OBJECT';
  if (Array.isArray(value)) return 'START_ARRAY';
  if (typeof value === 'string') return 'VALUE_STRING';
  if (typeof value === 'number') return 'VALUE_NUMBER';
  if (typeof value === 'boolean') return 'VALUE_BOOLEAN';
  return 'VALUE_NULL';
}

/** `[max_docs] parameter cannot be negative, found [-4]` (AbstractBulkByScrollRequest#setMaxDocs). */
function checkMaxDocs(value: number): number {
  if (value < 0) {
    throw new EsError(
      'illegal_argument_exception',
      `[max_docs] parameter cannot be negative, found [${value}]`,
    );
  }
  return value;
}

function integerValue(value: unknown): number {
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw new EsError('number_format_exception', `For input string: "${String(value)}"`);
  }
  return n;
}

/**
 * Reads the request (ES "Reindex API" body, ReindexRequest's ObjectParser) and validates it before any
 * index is resolved, in ES's order: parse errors first (unknown fields with "did you mean", a bad
 * `conflicts`, a negative or twice-given `max_docs`, junk under `source` or `dest`), then
 * ReindexRequest#validate's list ("Validation Failed: 1: …;").
 */
export function parseReindexRequest(
  body: Record<string, unknown>,
  url: ReindexUrlOptions = {},
  locate: Locate = () => undefined,
): ReindexRequest {
  for (const key of Object.keys(body)) {
    if (!REINDEX_FIELDS.includes(key)) throw unknownFieldError('reindex', key, REINDEX_FIELDS, locate([key]));
  }
  const source = parseSourceField(body.source, locate);
  const dest = parseDestField(body.dest, locate);
  if (body.script !== undefined)
    throw new EsError('illegal_argument_exception', 'script support is not available');
  let maxDocs: number | undefined;
  // In body order, as the ObjectParser meets them: `size` is max_docs' deprecated name.
  for (const field of Object.keys(body).filter((k) => k === 'max_docs' || k === 'size')) {
    if (body[field] === undefined || body[field] === null) continue;
    try {
      const value = checkMaxDocs(integerValue(body[field]));
      if (maxDocs !== undefined && maxDocs !== value) {
        throw new EsError(
          'illegal_argument_exception',
          `[max_docs] set to two different values [${maxDocs}] and [${value}]`,
        );
      }
      maxDocs = value;
    } catch (error) {
      if (error instanceof EsError) throw failedField(locate, field, error);
      throw error;
    }
  }
  const conflicts = body.conflicts ?? 'abort';
  if (conflicts !== 'abort' && conflicts !== 'proceed') {
    throw failedField(
      locate,
      'conflicts',
      new EsError(
        'illegal_argument_exception',
        `conflicts may only be "proceed" or "abort" but was [${String(conflicts)}]`,
      ),
    );
  }
  if (url.maxDocs !== undefined) {
    // RestReindexAction applies the URL's max_docs after the body (setMaxDocsValidateIdentical).
    const value = checkMaxDocs(integerValue(url.maxDocs));
    if (maxDocs !== undefined && maxDocs !== value) {
      throw new EsError(
        'illegal_argument_exception',
        `[max_docs] set to two different values [${maxDocs}] and [${value}]`,
      );
    }
    maxDocs = value;
  }

  const errors: string[] = [];
  if (source.from !== undefined) errors.push('from is not supported in this context');
  if (source.stored_fields !== undefined) errors.push('stored_fields is not supported in this context');
  if (maxDocs === 0) {
    errors.push(
      "maxDocs should be greater than 0 if the request is limited to some number of documents or -1 if it isn't but it was [0]",
    );
  }
  const sourceIndex = Array.isArray(source.index) ? source.index.join(',') : source.index;
  if (typeof sourceIndex !== 'string' || sourceIndex === '')
    errors.push('use _all if you really want to copy from all existing indexes');
  const filter = source._source === undefined ? undefined : parseSourceFilter(source._source);
  if (filter && !filter.enabled) errors.push('_source:false is not supported in this context');
  if (typeof dest.index !== 'string' || dest.index === '') errors.push('index must be specified');
  if (dest.routing !== undefined && !/^(keep|discard|=.*)$/s.test(String(dest.routing))) {
    errors.push('routing must be unset, [keep], [discard] or [=<some new value>]');
  }
  if (errors.length > 0) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: ${errors.map((e, i) => `${i + 1}: ${e};`).join('')}`,
    );
  }
  if (source.remote !== undefined) {
    throw new EsError(
      'illegal_argument_exception',
      'reindex from remote is not supported: source and dest are both on this server',
    );
  }
  const query = source.query === undefined ? undefined : parseQuery(source.query, source, 'query');
  return {
    sourceIndex: sourceIndex as string,
    query: query?.kind === 'match_all' ? undefined : query,
    batchSize: batchSizeOf(source.size),
    sourceFilter: copiedFields(filter),
    destIndex: dest.index as string,
    createOnly: dest.op_type === 'create',
    proceedOnConflicts: conflicts === 'proceed',
    maxDocs,
    requireAlias: url.requireAlias,
  };
}

function copiedFields(
  filter: ReturnType<typeof parseSourceFilter> | undefined,
): ReindexRequest['sourceFilter'] {
  if (!filter?.enabled || (filter.includes.length === 0 && filter.excludes.length === 0)) return undefined;
  return { includes: filter.includes, excludes: filter.excludes };
}

function parseSourceField(value: unknown, locate: Locate): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  try {
    if (!isObject(value)) {
      throw new EsError('parsing_exception', `Unknown key for a ${tokenOf(value)} in [source].`);
    }
    for (const [key, child] of Object.entries(value)) {
      if (SOURCE_OWN_KEYS.includes(key) || SEARCH_SOURCE_KEYS.has(key)) continue;
      throw new EsError('parsing_exception', `Unknown key for a ${tokenOf(child)} in [${key}].`, {
        metadata: locate(['source', key]) ?? {},
      });
    }
    if (value.size !== undefined) {
      const size = integerValue(value.size);
      if (size < 0) {
        throw new EsError(
          'illegal_argument_exception',
          `[size] parameter cannot be negative, found [${size}]`,
        );
      }
    }
    return value;
  } catch (error) {
    if (error instanceof EsError) throw failedField(locate, 'source', error);
    throw error;
  }
}

function parseDestField(value: unknown, locate: Locate): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  const inner = (cause: EsError) => failedField(locate, 'dest', cause);
  if (!isObject(value)) {
    throw inner(
      new EsError('x_content_parse_exception', `${where(locate, ['dest'])} [dest] Expected START_OBJECT`),
    );
  }
  for (const key of Object.keys(value)) {
    if (!DEST_FIELDS.includes(key))
      throw inner(unknownFieldError('dest', key, DEST_FIELDS, locate(['dest', key])));
  }
  const wrapField = (field: string, cause: EsError) =>
    inner(
      new EsError(
        'x_content_parse_exception',
        `${where(locate, ['dest', field])} [dest] failed to parse field [${field}]`,
        {
          causedBy: cause.toCause(),
        },
      ),
    );
  if (value.op_type !== undefined) {
    const opType = String(value.op_type).toLowerCase();
    if (opType !== 'create' && opType !== 'index') {
      throw wrapField(
        'op_type',
        new EsError(
          'illegal_argument_exception',
          `opType must be 'create' or 'index', found: [${String(value.op_type)}]`,
        ),
      );
    }
    value.op_type = opType;
  }
  if (value.version_type !== undefined) {
    const versionType = String(value.version_type);
    if (!['internal', 'external', 'external_gte'].includes(versionType)) {
      throw wrapField(
        'version_type',
        new EsError('illegal_argument_exception', `No version type match [${versionType}]`),
      );
    }
  }
  return value;
}

/** `source.size`: the batch size (0 means the default batch, as a scroll of size 0 is not useful). */
function batchSizeOf(value: unknown): number {
  if (value === undefined || value === null) return 1000;
  const size = integerValue(value);
  return size > 0 ? size : 1000;
}

/**
 * ES ReindexValidator: after resolution, the destination's write index may not be one of the sources
 * ("reindex cannot write into an index its reading from [x]"); with `require_alias`, the destination
 * must be an alias (checked first, before anything is created).
 */
export function checkReindexTargets(
  sourceNames: readonly string[],
  destWriteIndex: string | undefined,
  destName: string,
  destIsAlias: boolean,
  requireAlias: boolean | undefined,
): void {
  if (requireAlias && !destIsAlias) {
    throw new EsError(
      'index_not_found_exception',
      `no such index [${destName}] and [require_alias] request flag is [true] and [${destName}] is not an alias`,
      {
        metadata: {
          'resource.type': 'index_or_alias',
          'resource.id': destName,
          index_uuid: '_na_',
          index: destName,
        },
      },
    );
  }
  const target = destWriteIndex ?? destName;
  if (sourceNames.includes(target)) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: 1: reindex cannot write into an index its reading from [${target}];`,
    );
  }
}
