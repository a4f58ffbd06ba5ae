import { EsError } from '@acme/common';
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
}

/** Reads the request (ES "Reindex API" request body). */
export function parseReindexRequest(body: Record<string, unknown>): ReindexRequest {
  const source = (body.source ?? {}) as Record<string, unknown>;
  const dest = (body.dest ?? {}) as Record<string, unknown>;
  const errors: string[] = [];
  const sourceIndex = Array.isArray(source.index) ? source.index.join(',') : source.index;
  if (typeof sourceIndex !== 'string' || sourceIndex === '')
    errors.push('use _all if you really want to copy from all existing indexes');
  if (typeof dest.index !== 'string' || dest.index === '') errors.push('index must be specified');
  if (body.script !== undefined)
    throw new EsError('illegal_argument_exception', 'script support is not available');
  if (errors.length > 0) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: ${errors.map((e, i) => `${i + 1}: ${e};`).join('')}`,
    );
  }
  const query = source.query === undefined ? undefined : parseQuery(source.query, source, 'query');
  const conflicts = body.conflicts ?? 'abort';
  if (conflicts !== 'abort' && conflicts !== 'proceed') {
    throw new EsError(
      'illegal_argument_exception',
      `conflicts may only be "proceed" or "abort" but was [${String(conflicts)}]`,
    );
  }
  const maxDocs = checkPositiveCount('max_docs', body.max_docs ?? body.size);
  return {
    sourceIndex: sourceIndex as string,
    query: query?.kind === 'match_all' ? undefined : query,
    batchSize: checkPositiveCount('size', source.size) ?? 1000,
    sourceFilter: parseReindexSourceFilter(source._source),
    destIndex: dest.index as string,
    createOnly: dest.op_type === 'create',
    proceedOnConflicts: conflicts === 'proceed',
    maxDocs,
  };
}

function checkPositiveCount(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new EsError('x_content_parse_exception', `[reindex] failed to parse field [${name}]`);
  }
  if (value <= 0) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: 1: ${name === 'size' ? 'size' : 'maxDocs'} should be greater than 0 if the request is limited to some number of documents or -1 if it isn't but it was [${value}];`,
    );
  }
  return value;
}

function parseReindexSourceFilter(value: unknown): ReindexRequest['sourceFilter'] {
  const filter = parseSourceFilter(value);
  if (!filter.enabled) {
    throw new EsError('illegal_argument_exception', '[reindex] source._source cannot be false');
  }
  return filter.includes.length === 0 && filter.excludes.length === 0
    ? undefined
    : { includes: filter.includes, excludes: filter.excludes };
}
