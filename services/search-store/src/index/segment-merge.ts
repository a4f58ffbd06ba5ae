import type { PoolClient } from 'pg';
import { buildBlocks, MERGE_AT, smallRunAfter, unpackBlock, writeBlock } from './build-blocks';
import { int8ArrayParam } from '../storage/binary-params';
import { queueBinaryCopy } from '../storage/copy-binary';
import { withNestedLoops } from './with-nested-loops';

/** Terms one merge transaction takes at most: it holds the index's row lock, so writers wait for it. */
export const MERGE_TERMS_PER_ROUND = 256;

export interface MergeRound {
  /** Terms whose runs were merged. */
  terms: number;
  blocksRead: number;
  blocksWritten: number;
}

/**
 * One round of the background merge of postings (migration 0026), in the caller's transaction, which
 * holds the index's row lock (writers and deletes wait; searches go on in their snapshots and see the
 * postings before or after the round, the same postings either way).
 *
 * The policy, after Lucene's TieredMergePolicy with a term's blocks as its segments: a batch writes a
 * term's postings as full blocks of 128 (the max merged segment size: never merged again) and one
 * smaller block; a term's run of such small blocks (`small_run`) is one tier, merged once it holds
 * `minRun` blocks (segments per tier, MERGE_AT) into full blocks and one remainder, which starts the
 * next run. So a search reads, per term, at most MERGE_AT small blocks beyond one per batch's full
 * blocks (at most twice the minimum ⌈df / 128⌉, for a term with just over 128 postings a batch),
 * plus what the merge has not caught up with, plus one: a writer whose cached tail a merge has
 * rewritten counts on from its stale run, which reaches the next multiple of MERGE_AT (the
 * candidates the partial index lists, migration 0030) one block after the true run reached MERGE_AT. `_forcemerge` passes `minRun` 2: every run merged.
 *
 * A run is read from its first small block to the term's last (a delete may have dropped blocks
 * inside it; later batches may have added blocks after it; a run a writer counted from a cached tail
 * that a merge had already rewritten may reach back over full blocks, which are left alone), deleted,
 * and written again as blocks of 128: the same postings, the same term totals on the last block, so
 * scores are identical before and after.
 */
export async function mergeSegments(
  client: PoolClient,
  indexId: string,
  { minRun = MERGE_AT, maxTerms = MERGE_TERMS_PER_ROUND } = {},
): Promise<MergeRound> {
  // At the policy's threshold the partial index lists the candidates: since migration 0030 only the
  // blocks whose run is a multiple of MERGE_AT (its predicate has the literal), which every run passes
  // (a run grows by one a small block); any other threshold (force merge) reads the index's blocks.
  const threshold =
    minRun === MERGE_AT
      ? `small_run % ${MERGE_AT} = 0 AND small_run > 0 AND small_run >= $3`
      : 'small_run >= $3';
  const { rows: starts } = await client.query<{ term_id: string; start: string }>(
    `SELECT c.term_id, (SELECT min(r.base_doc_key) FROM (
              SELECT b.base_doc_key, octet_length(b.norms) AS size FROM posting_blocks b
              WHERE b.index_id = $1 AND b.term_id = c.term_id AND b.base_doc_key <= c.base_doc_key
              ORDER BY b.base_doc_key DESC LIMIT c.small_run) r WHERE r.size < 128) AS start
     FROM (SELECT DISTINCT ON (term_id) term_id, base_doc_key, small_run FROM posting_blocks
           WHERE index_id = $1 AND ${threshold}
           ORDER BY term_id, base_doc_key LIMIT $2) c`,
    [indexId, maxTerms, minRun],
  );
  if (starts.length === 0) return { terms: 0, blocksRead: 0, blocksWritten: 0 };
  const { rows } = await withNestedLoops(client, () =>
    client.query<{
      term_id: string;
      base_doc_key: string;
      doc_offsets: Buffer;
      freqs: Buffer;
      norms: Buffer;
      term_doc_freq: number;
      term_total_freq: string;
    }>(
      `DELETE FROM posting_blocks b USING unnest($2::bigint[], $3::bigint[]) AS u(term_id, start)
       WHERE b.index_id = $1 AND b.term_id = u.term_id AND b.base_doc_key >= u.start
       RETURNING b.term_id, b.base_doc_key, b.doc_offsets, b.freqs, b.norms, b.term_doc_freq, b.term_total_freq`,
      [
        indexId,
        int8ArrayParam(starts.map((s) => Number(s.term_id))),
        int8ArrayParam(starts.map((s) => Number(s.start))),
      ],
    ),
  );
  const byTerm = new Map<number, typeof rows>();
  for (const row of rows) {
    const termId = Number(row.term_id);
    let list = byTerm.get(termId);
    if (!list) byTerm.set(termId, (list = []));
    list.push(row);
  }
  const index = Number(indexId);
  let written = 0;
  await queueBinaryCopy(
    client,
    `COPY posting_blocks (index_id, term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms, max_freq, min_norm,
                         term_doc_freq, term_total_freq, small_run, peaks)
     FROM STDIN`,
    function* (copy) {
      for (const termId of [...byTerm.keys()].sort((a, b) => a - b)) {
        const blocks = byTerm.get(termId)!.sort((a, b) => Number(a.base_doc_key) - Number(b.base_doc_key));
        // The term's last block is the run's last: its totals are the term's.
        const last = blocks[blocks.length - 1]!;
        const totals = { docFreq: last.term_doc_freq, totalTermFreq: Number(last.term_total_freq) };
        const docKeys: number[] = [];
        const freqs: number[] = [];
        const norms: number[] = [];
        for (const b of blocks) {
          const base = Number(b.base_doc_key);
          const block = unpackBlock(b.doc_offsets, b.freqs, b.norms);
          for (let i = 0; i < block.offsets.length; i++) {
            docKeys.push(base + block.offsets[i]!);
            freqs.push(block.freqs[i]!);
            norms.push(block.norms[i]!);
          }
        }
        let smallRun = 0;
        for (const block of buildBlocks({ docKeys, freqs, norms, start: 0, end: docKeys.length })) {
          smallRun = smallRunAfter(smallRun, block.offsets.length);
          writeBlock(copy, index, termId, block, totals, smallRun);
          written++;
        }
        yield;
      }
    },
  );
  return { terms: byTerm.size, blocksRead: rows.length, blocksWritten: written };
}
