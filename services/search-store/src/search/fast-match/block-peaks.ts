import type { TermPostings } from './score-match-plan';

interface Peaks {
  normInverse: Float32Array;
  /** The block ends they were computed for (undefined: the list as one block). */
  ends: Int32Array | undefined;
  peaks: Float32Array;
}

/**
 * Per list, the peaks last computed and the field's length table they were computed with; keyed by
 * the list's norms array, which the postings cache hands out with every unpacked copy of a list it
 * keeps (packed-postings.ts), so the peaks are computed once per cached list, not once per search.
 * A list's norms array is never another list's, but for those copies (equal postings and blocks);
 * the block ends are compared all the same, since a copy without its blocks is one block.
 */
const held = new WeakMap<Uint8Array, Peaks>();

/**
 * Each posting block's largest `freq × normInverse[norm]` (float32, as bm25.ts termScore computes
 * it), from the decoded postings themselves: the exact best impact of the block. A block's stored
 * max_freq and min_norm (migration 0004) may come from two different documents, a long one with
 * many occurrences and a short one with one; on prose every 128-document block holds both, so that
 * bound sits near the term's best and prunes little (issue 23). Lucene keeps the Pareto front of
 * (freq, norm) pairs per block for this reason (Lucene50 impacts); here the postings are in memory
 * already, so the front's maximum is computed outright in one pass.
 *
 * termScore is non-decreasing in this product for a weight ≥ 0 (every float32 step is monotonic),
 * so termScore(w, peak) is the largest term score of the block, whatever the term's weight (it
 * changes with docFreq and docCount): only the length table (avgdl) decides the peaks. They are
 * kept per list while the table is unchanged, so a list the postings cache holds pays the pass once.
 */
export function blockPeaks(list: TermPostings, normInverse: Float32Array): Float32Array {
  const known = held.get(list.norms);
  if (known && known.ends === list.blocks?.ends && sameValues(known.normInverse, normInverse))
    return known.peaks;
  // A list read without its blocks is one block.
  const ends = list.blocks?.ends ?? Int32Array.of(list.docs.length);
  const { freqs, norms } = list;
  const peaks = new Float32Array(ends.length);
  let p = 0;
  for (let b = 0; b < ends.length; b++) {
    const end = ends[b]!;
    let peak = 0;
    // The largest product in double, rounded once as it is stored: float32 rounding is monotonic,
    // so that is the largest of the products each rounded (termScore's f(freq × normInverse)).
    for (; p < end; p++) {
      const x = freqs[p]! * normInverse[norms[p]!]!;
      if (x > peak) peak = x;
    }
    peaks[b] = peak;
  }
  held.set(list.norms, { normInverse, ends: list.blocks?.ends, peaks });
  return peaks;
}

function sameValues(a: Float32Array, b: Float32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
