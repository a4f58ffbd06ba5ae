import type { Pool } from 'pg';
import { EsError } from '@acme/common';
import { illegalArgument } from '../es-errors';
import { compileQuery } from '../query/compile/compile-query';
import { SqlParams } from '../query/compile/sql-params';
import { parseSearchRequest, type SourceFilter } from '../query/parse/search-request';
import type { Query } from '../query/query-ast';
import { formatFloat } from '../query/score/bm25';
import { filterSource } from '../source/filter-source';
import { findDocumentWithText } from '../storage/documents.repo';
import { explainHit, type Explanation } from './hits/explain-hit';
import { inSnapshot } from './in-snapshot';

/** What the explain API asks: the index (or single-index alias), the id and the request. */
export interface ExplainRequest {
  index: string;
  id: string;
  body: unknown;
  params: Record<string, string | undefined>;
}

export interface ExplainResult {
  found: boolean;
  body: Record<string, unknown>;
}

/**
 * ES "Explain API": whether one document matches a query and why, in one REPEATABLE READ snapshot.
 * The explanation is the one `_search` with `explain: true` gives the same document
 * (search/hits/explain-hit.ts over the same compiled query); an alias's filter decides `matched`
 * as it filters the search. A missing document is `found: false` (the route answers 404).
 */
export async function explainDocument(
  pool: Pool,
  request: ExplainRequest,
  gone?: AbortSignal,
): Promise<ExplainResult> {
  const body = request.body;
  const hasQuery =
    (typeof body === 'object' && body !== null && 'query' in body) || request.params.q !== undefined;
  // RestExplainAction reads the body as a query holder (only `query`), as _count does.
  const parsed = parseSearchRequest(body, request.params, true);
  if (!hasQuery) {
    throw new EsError('action_request_validation_exception', 'Validation Failed: 1: query is missing;');
  }
  const now = Date.now();
  return inSnapshot(
    pool,
    { index: request.index, ignoreUnavailable: false },
    async (client, readers) => {
      if (readers.length !== 1) {
        throw illegalArgument(
          `alias [${request.index}] has more than one index associated with it [${readers.map((r) => r.name).join(', ')}], can't execute a single index op`,
        );
      }
      const reader = readers[0]!;
      const head = { _index: reader.name, _id: request.id };
      const doc = await findDocumentWithText(client, reader.indexId, request.id);
      if (!doc) return { found: false, body: { ...head, matched: false } };
      const query: Query = reader.filter
        ? { kind: 'bool', must: [parsed.query], filter: [reader.filter], should: [], mustNot: [], boost: 1 }
        : parsed.query;
      const params = new SqlParams();
      const sql = await compileQuery({ db: client, reader, params, now }, query, 1, true);
      const { rows } = await client.query<{ s: number }>(
        `SELECT s FROM (${sql}) x WHERE doc_key = ${params.add(doc.docKey)}`,
        params.values,
      );
      const score = rows[0]?.s;
      const explanation =
        score === undefined
          ? noMatch(parsed.query)
          : await explainHit(client, reader, parsed.query, doc.docKey, score, now);
      const out: Record<string, unknown> = { ...head, matched: score !== undefined, explanation };
      const get = getResult(doc, parsed.source, request.params);
      if (get) out.get = get;
      return { found: true, body: out };
    },
    undefined,
    gone,
  );
}

/** Lucene's explanation of a document a query does not match (BooleanWeight, TermWeight). */
function noMatch(query: Query): Explanation {
  if (query.kind === 'bool') {
    const required = query.must.length + query.filter.length + query.mustNot.length > 0;
    return {
      value: formatFloat(0),
      description: required
        ? 'Failure to meet condition(s) of required/prohibited clause(s)'
        : 'No matching clauses',
      details: [],
    };
  }
  return { value: formatFloat(0), description: 'no matching term', details: [] };
}

/**
 * The `get` section (TransportExplainAction): present when `stored_fields` or a fetching `_source`
 * was asked, as GetResult#toXContentEmbedded writes it.
 */
function getResult(
  doc: { seqNo: number; primaryTerm: number; source: Record<string, unknown> },
  source: SourceFilter,
  params: Record<string, string | undefined>,
): Record<string, unknown> | undefined {
  const sourceAsked =
    params._source !== undefined ||
    params._source_includes !== undefined ||
    params._source_excludes !== undefined;
  const fetchSource = sourceAsked && source.enabled;
  if (!fetchSource && params.stored_fields === undefined) return undefined;
  const get: Record<string, unknown> = { _seq_no: doc.seqNo, _primary_term: doc.primaryTerm, found: true };
  if (fetchSource) get._source = filterSource(doc.source, source.includes, source.excludes);
  return get;
}
