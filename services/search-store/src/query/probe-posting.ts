/**
 * SQL reading block postings (migration 0004) one document at a time.
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
 * posting row. The offset is computed only for the one block found, and only when k is inside it.
 */
export function probePosting(alias: string, indexId: string, termId: string, docKey: string): string {
  return `CROSS JOIN LATERAL (
    SELECT pb.freqs[pb.i] AS freq, pb.norms[pb.i] AS norm FROM (
      SELECT freqs, norms,
             CASE WHEN last_doc_key >= ${docKey} THEN array_position(doc_offsets, (${docKey} - base_doc_key)::int4) END AS i
      FROM posting_blocks
      WHERE index_id = ${indexId} AND term_id = ${termId} AND base_doc_key <= ${docKey}
      ORDER BY base_doc_key DESC LIMIT 1) pb
    WHERE pb.i IS NOT NULL) ${alias}`;
}

/**
 * A list join over a whole posting list wins over probing when the lists are of similar length:
 * a probe costs a btree descent (~5 µs), reading a posting from a block ~0.5 µs.
 */
const PROBE_RATIO = 8;

/**
 * Joins term `termId`'s posting for document `<driver>.doc_key`, as `<alias>.freq`/`<alias>.norm`, in
 * a conjunction driven by a rarer list of `driverDocFreq` documents: probes when this list is much
 * longer, else the whole list joined on doc_key (fenced with OFFSET 0 so the planner merges or hashes
 * the two lists instead of unnesting this one per driver row).
 */
export function joinPosting(
  alias: string,
  indexId: string,
  termId: string,
  driver: string,
  driverDocFreq: number,
  docFreq: number,
): string {
  if (docFreq > driverDocFreq * PROBE_RATIO) return probePosting(alias, indexId, termId, `${driver}.doc_key`);
  return `JOIN (SELECT doc_key, freq, norm FROM postings WHERE index_id = ${indexId} AND term_id = ${termId} OFFSET 0) ${alias}
    ON ${alias}.doc_key = ${driver}.doc_key`;
}

/**
 * A `CROSS JOIN LATERAL` yielding `<alias>.tokens`, the token stream (term id per position) of field
 * `fieldId` in document `docKey`; positions of term T are `array_positions(<alias>.tokens, T)` minus 1.
 */
export function joinTokens(alias: string, indexId: string, fieldId: string, docKey: string): string {
  return `CROSS JOIN LATERAL (
    SELECT term_ids AS tokens FROM doc_tokens
    WHERE index_id = ${indexId} AND doc_key = ${docKey} AND field_id = ${fieldId}) ${alias}`;
}

/** array_positions is 1-based; phrase positions are 0-based. */
export function toPositions(oneBased: number[] | null): number[] {
  return (oneBased ?? []).map((p) => p - 1);
}
