import { byteaLength, packedHexAt, packedWidth, PgArrayError } from './parse-pg-int-array';
import type { PackedBlock } from './read-packed-blocks';
import type { TermPostings } from './score-match-plan';

/**
 * A term's postings at the candidate documents only, found in its packed blocks as sent (bytea hex)
 * without parsing them: for each candidate the one block that can hold it (the last whose base is ≤
 * it, blocks and candidates both ascending, so one pass), then a binary search of its offsets in
 * place, and the freq and norm read at the position found. A conjunction's long lists cost their
 * rarest list's length times a logarithm this way, as Lucene's ConjunctionDISI advances them, not
 * their own length (read-conjunction.ts).
 *
 * The answer holds the candidates found in the term, in order, with `docFreq` the term's (its BM25
 * weight); no block data, so block-max pruning does not apply to it (it is short). `blocks` are
 * sorted in place.
 */
export function postingsAt(docFreq: number, blocks: PackedBlock[], candidates: Float64Array): TermPostings {
  blocks.sort((a, b) => a.base - b.base);
  const capacity = Math.min(candidates.length, docFreq);
  const docs = new Float64Array(capacity);
  const freqs = new Int32Array(capacity);
  const norms = new Uint8Array(capacity);
  let n = 0;
  let b = -1;
  // The current block's size and widths, read once per block entered.
  let size = 0;
  let offsetWidth = 0;
  let freqWidth = 0;
  for (let j = 0; j < candidates.length && n < capacity; j++) {
    const d = candidates[j]!;
    let moved = false;
    while (b + 1 < blocks.length && blocks[b + 1]!.base <= d) {
      b++;
      moved = true;
    }
    if (b < 0) continue;
    const block = blocks[b]!;
    if (moved) {
      size = byteaLength(block.norms);
      if (size === 0) throw new PgArrayError('an empty posting block');
      offsetWidth = packedWidth(block.offsets, size);
      freqWidth = packedWidth(block.freqs, size);
    }
    const target = d - block.base;
    let low = 0;
    let high = size;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (packedHexAt(block.offsets, offsetWidth, mid) < target) low = mid + 1;
      else high = mid;
    }
    if (low === size || packedHexAt(block.offsets, offsetWidth, low) !== target) continue;
    docs[n] = d;
    freqs[n] = packedHexAt(block.freqs, freqWidth, low);
    norms[n] = packedHexAt(block.norms, 1, low);
    n++;
  }
  return { docFreq, docs: docs.subarray(0, n), freqs: freqs.subarray(0, n), norms: norms.subarray(0, n) };
}
