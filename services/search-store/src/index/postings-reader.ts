import type { Queryable } from '../storage/queryable';

/**
 * The postings reader: SQL over the block postings (migration 0004) and the token streams, for the
 * query compiler, explain and phrase scoring, which get relations and rows from here and never name
 * the tables (Lucene's PostingsReader; the index's tables are named only in index/ and storage/).
 * A relation's parameters are SQL expressions the caller has already bound (`$3::bigint`, a column).
 * Rows of the `postings` relation: `(index_id, term_id, doc_key, freq, norm)`.
 *
 * The `postings` view unnests whole blocks: right for reading a term's postings list, wrong for
 * "does term T occur in doc k", where a doc_key condition on the view would unnest every block of T.
 * A probe instead takes the one block that can hold k, the last of T with base_doc_key <= k (one
 * backward primary-key probe, as Lucene's advance() skips to the block), and finds k in its ≤128
 * offsets when k <= last_doc_key.
 */

/**
 * A `CROSS JOIN LATERAL` yielding `<alias>.freq` and `<alias>.norm` of term `termId` in document
 * `docKey` (SQL expressions), and no row when the document lacks the term, so it joins like a
 * posting row. The offset is computed only for the one block found, and only when k is inside it:
 * its subscript is found among the block's packed offsets by block_position (migration 0030: the
 * offset's bytes at its width, a byte search as array_position was an element search).
 */
export function probePosting(alias: string, indexId: string, termId: string, docKey: string): string {
  return `CROSS JOIN LATERAL (
    SELECT posting_int(pb.freqs, octet_length(pb.freqs) / octet_length(pb.norms), pb.i) AS freq,
           get_byte(pb.norms, pb.i)::int2 AS norm FROM (
      SELECT freqs, norms,
             CASE WHEN last_doc_key >= ${docKey}
                  THEN block_position(doc_offsets, octet_length(doc_offsets) / octet_length(norms), (${docKey} - base_doc_key)::int4) END AS i
      FROM posting_blocks
      WHERE index_id = ${indexId} AND term_id = ${termId} AND base_doc_key <= ${docKey}
      ORDER BY base_doc_key DESC LIMIT 1) pb
    WHERE pb.i IS NOT NULL) ${alias}`;
}

/**
 * Whether a conjunction should be driven by its rarest list probing the others: when the longest list
 * is more than 8× the rarest (a probe costs a btree descent, ~5 µs; reading a posting from a block
 * ~0.5 µs). Lists of similar length are intersected by grouping their postings on doc_key instead
 * (a hash aggregate). Not a join of the lists: the planner guesses ~10 postings a block, and with
 * such estimates picked nested loops comparing every pair (270 ms for three 5k-document lists).
 */
export function isSkewed(docFreqs: number[]): boolean {
  return Math.max(...docFreqs) > Math.min(...docFreqs) * 8;
}

/**
 * SQL yielding `(doc_key, norm)` of the documents holding every one of `terms` (`id` a bigint SQL
 * expression, distinct terms of one field): driven by the rarest list with probes when the lengths
 * are skewed, else the postings grouped on doc_key.
 */
export function conjunctionCandidates(indexId: string, terms: { id: string; docFreq: number }[]): string {
  const sorted = [...terms].sort((a, b) => a.docFreq - b.docFreq);
  if (sorted.length === 1 || isSkewed(sorted.map((t) => t.docFreq))) {
    const probes = sorted
      .slice(1)
      .map((t, j) => probePosting(`c${j + 1}`, indexId, t.id, 'c0.doc_key'))
      .join(' ');
    return `SELECT c0.doc_key, c0.norm ${fromPostings('c0', probes, indexId, sorted[0]!.id)}`;
  }
  return `SELECT doc_key, min(norm) AS norm FROM postings
          WHERE index_id = ${indexId} AND term_id = ANY(ARRAY[${sorted.map((t) => t.id).join(', ')}]::bigint[])
          GROUP BY doc_key HAVING count(*) = ${sorted.length}`;
}

/**
 * `FROM` the postings of term `termId` as `<alias>` with `joins` after it (probes of other terms at
 * `<alias>.doc_key`): a conjunction driven by its rarest list.
 */
export function fromPostings(alias: string, joins: string, indexId: string, termId: string): string {
  return `FROM postings ${alias} ${joins}
            WHERE ${alias}.index_id = ${indexId} AND ${alias}.term_id = ${termId}`;
}

/** `JOIN` the postings of term `termId` (an expression over the preceding relations) as `<alias>`. */
export function joinPostings(alias: string, indexId: string, termId: string): string {
  return `JOIN postings ${alias} ON ${alias}.index_id = ${indexId} AND ${alias}.term_id = ${termId}`;
}

/**
 * `JOIN` the posting blocks of term `termId` as `<alias>`: `<alias>.base_doc_key`, `.last_doc_key`,
 * `.doc_offsets`, `.freqs`, `.norms` as migration 0004 describes them, packed as migration 0030 does
 * (bytea of fixed-width numbers, the width a column's length / the block's size, octet_length(norms)),
 * which the fast path decodes itself (search/fast-match/parse-pg-int-array.ts).
 */
export function joinTermBlocks(alias: string, indexId: string, termId: string): string {
  return `JOIN posting_blocks ${alias} ON ${alias}.index_id = ${indexId} AND ${alias}.term_id = ${termId}`;
}

/**
 * A bytea of term `termId`'s block bounds, no postings (search/fast-match/load-top-term-postings.ts):
 * per block in doc order its base_doc_key (int8), max_freq (int4), min_norm (int2), the length of its
 * peaks (int2, -1 for NULL) and the peaks (migration 0032). One value rather than a row per block:
 * node-pg parsing 3,000 rows for a common word at 1M documents cost more than the postings it saved.
 */
export function termBlockBounds(indexId: string, termId: string): string {
  return `(SELECT string_agg(int8send(b.base_doc_key) || int4send(b.max_freq) || int2send(b.min_norm)
            || int2send(coalesce(octet_length(b.peaks), -1)::int2) || coalesce(b.peaks, '\\x'::bytea),
            ''::bytea ORDER BY b.base_doc_key)
    FROM posting_blocks b WHERE b.index_id = ${indexId} AND b.term_id = ${termId})`;
}

/**
 * A `COPY … TO STDOUT (FORMAT binary)` of the posting blocks of `termIds` in index `indexId`, by term
 * then doc: `(term_id, base_doc_key, doc_offsets, freqs, norms, max_freq, min_norm, xmin)` as
 * joinTermBlocks describes them, and each block's xmin, so that the last block of a term gives its
 * `version` (the `terms` view's `xmin/base_doc_key`, migration 0010). COPY takes no parameters: the
 * ids are rendered from bigints, never from user text.
 */
export function copyTermBlocks(indexId: bigint, termIds: readonly bigint[]): string {
  return `COPY (SELECT b.term_id, b.base_doc_key, b.doc_offsets, b.freqs, b.norms, b.max_freq, b.min_norm, b.xmin
    FROM posting_blocks b
    WHERE b.index_id = ${indexId.toString()} AND b.term_id = ANY('{${termIds.map((id) => id.toString()).join(',')}}'::bigint[])
    ORDER BY b.term_id, b.base_doc_key) TO STDOUT (FORMAT binary)`;
}

/**
 * `(doc_key)` of the documents holding a term of field `fieldId` that satisfies `condition`, given the
 * term column (`lower(term) = ANY(…)`, `term LIKE …`): prefix, wildcard and unscored term queries.
 */
export function docsWithTerms(indexId: string, fieldId: string, condition: (term: string) => string): string {
  return `SELECT DISTINCT p.doc_key FROM terms t JOIN postings p ON p.index_id = t.index_id AND p.term_id = t.term_id
         WHERE t.index_id = ${indexId} AND t.field_id = ${fieldId} AND ${condition('t.term')}`;
}

/**
 * A `CROSS JOIN LATERAL` yielding `<alias>.tokens`, the token stream (term id per position) of field
 * `fieldId` in document `docKey`; positions of term T are `tokenPositions(<alias>, T)` minus 1.
 */
export function joinTokens(alias: string, indexId: string, fieldId: string, docKey: string): string {
  return `CROSS JOIN LATERAL (
    SELECT term_ids AS tokens FROM doc_tokens
    WHERE index_id = ${indexId} AND doc_key = ${docKey} AND field_id = ${fieldId}) ${alias}`;
}

/**
 * The 1-based positions of term `termId` (SQL: a bigint column or placeholder) in a token stream joined
 * by joinTokens. The stream is int4[] (migration 0028) and array_positions wants its element type.
 */
export function tokenPositions(alias: string, termId: string): string {
  return `array_positions(${alias}.tokens, (${termId})::int4)`;
}

/** array_positions is 1-based; phrase positions are 0-based. */
export function toPositions(oneBased: number[] | null): number[] {
  return (oneBased ?? []).map((p) => p - 1);
}

/** A term's document frequency and its posting in one document (explain); undefined when absent. */
export async function findTermPosting(
  db: Queryable,
  indexId: string,
  fieldId: number,
  term: string,
  docKey: string,
): Promise<{ doc_freq: number; freq: number; norm: number } | undefined> {
  const { rows } = await db.query<{ doc_freq: number; freq: number; norm: number }>(
    `SELECT t.doc_freq, p.freq, p.norm FROM terms t ${probePosting('p', '$1::bigint', 't.term_id', '$4::bigint')}
     WHERE t.index_id = $1 AND t.field_id = $2 AND t.term = $3`,
    [indexId, fieldId, term, docKey],
  );
  return rows[0];
}

/**
 * Of `terms`, those present in one document: each with its document frequency, its 1-based
 * positions in the field's token stream (toPositions) and the document's norm (explain of a phrase).
 */
export async function findTermPositions(
  db: Queryable,
  indexId: string,
  fieldId: number,
  terms: string[],
  docKey: string,
): Promise<{ term: string; doc_freq: number; positions: number[]; norm: number }[]> {
  const { rows } = await db.query<{ term: string; doc_freq: number; positions: number[]; norm: number }>(
    `SELECT t.term, t.doc_freq, ${tokenPositions('dt', 't.term_id')} AS positions, p.norm
     FROM terms t ${probePosting('p', '$1::bigint', 't.term_id', '$4::bigint')} ${joinTokens('dt', '$1::bigint', '$2::int', '$4::bigint')}
     WHERE t.index_id = $1 AND t.field_id = $2 AND t.term = ANY($3::text[])`,
    [indexId, fieldId, terms, docKey],
  );
  return rows;
}
