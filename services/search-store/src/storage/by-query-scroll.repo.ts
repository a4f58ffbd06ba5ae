import type { PoolClient } from 'pg';
import { withMatched, type MatchedKeysSql } from './documents.repo';

/** A document as a by-query batch reads it from its snapshot (ES: a scroll hit with seq_no and version). */
export interface ScrolledDocument {
  indexId: string;
  id: string;
  version: number;
  seqNo: number;
  primaryTerm: number;
  /** The stored source text, verbatim ('' when the scroll was opened without sources). */
  sourceText: string;
}

const CURSOR = 'by_query_scroll';

/**
 * Opens the scroll of a by-query on a connection inside a REPEATABLE READ transaction: every batch
 * comes from the snapshot taken at the start, as Elasticsearch's scroll reads a point in time, so a
 * document written by someone else afterwards is a version conflict, never a document seen twice or a
 * new one. Answers how many documents match (at most `maxDocs`): ES's `total`.
 */
export async function openMatchedDocsScroll(
  client: PoolClient,
  indexIds: string[],
  matched: MatchedKeysSql | undefined,
  maxDocs: number | undefined,
  /** False for a delete_by_query, which needs no source. */
  withSource = true,
): Promise<number> {
  const q = withMatched(matched, [indexIds, maxDocs ?? null]);
  const where = `s.index_id = ANY(${q.at(1)}::bigint[]) ${q.filter('s')}`;
  const { rows } = await client.query<{ total: string }>(
    `SELECT count(*) AS total FROM (SELECT 1 FROM documents s WHERE ${where} LIMIT ${q.at(2)}) m`,
    q.values,
  );
  const values = q.values.slice(0, q.values.length - 1);
  await client.query(
    `DECLARE ${CURSOR} NO SCROLL CURSOR FOR
     SELECT s.index_id, s.id, s.version, s.seq_no, s.primary_term,
       ${withSource ? 's.source::text' : "''"} AS source_text
     FROM documents s WHERE ${where}`,
    values,
  );
  return Number(rows[0]?.total ?? 0);
}

/** The next `count` documents of the scroll (fewer at its end). */
export async function fetchMatchedDocs(client: PoolClient, count: number): Promise<ScrolledDocument[]> {
  const { rows } = await client.query<{
    index_id: string;
    id: string;
    version: string;
    seq_no: string;
    primary_term: string;
    source_text: string;
  }>(`FETCH FORWARD ${Math.max(1, Math.trunc(count))} FROM ${CURSOR}`);
  return rows.map((row) => ({
    indexId: row.index_id,
    id: row.id,
    version: Number(row.version),
    seqNo: Number(row.seq_no),
    primaryTerm: Number(row.primary_term),
    sourceText: row.source_text,
  }));
}
