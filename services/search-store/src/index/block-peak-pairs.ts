/**
 * A posting block's peaks (posting_blocks.peaks, migration 0032): the Pareto front of its postings'
 * (freq, norm) pairs. Block-max pruning bounded a block by BM25(max_freq, min_norm), but the highest
 * freq and the shortest field often belong to two different documents, and that bound then keeps
 * nearly every block of a frequent term. BM25's term score rises with freq and falls with the norm
 * byte (query/score/bm25.ts: the norm byte decodes to a length that never falls as the byte grows,
 * index/small-float.ts, and every step is a monotone float operation for b in [0, 1], k1 >= 0 and a
 * weight >= 0), so whatever the statistics, a block's best score is the best over its front's pairs.
 * Fields without norms (keyword) write the norm byte 1 for every posting (index/analyze-document.ts):
 * a constant norm keeps the rule, and such a block's front is its one (max_freq, 1) pair, so empty.
 *
 * The bytes: empty when one pair dominates the whole block (a posting has both max_freq and min_norm:
 * the pair is (max_freq, min_norm), already in the row); otherwise the front's pairs in ascending
 * freq (hence ascending norm) order, 5 bytes each: the freq as uint32 big-endian, then the norm byte.
 * Migration 0032's block_peaks computes the same bytes in SQL from the packed columns.
 */

/** Bytes a pair takes in the column. */
export const PEAK_PAIR_BYTES = 5;

/** The best freq seen per norm byte within one call (reset after use, so a call costs its own span). */
const bestAtNorm = new Int32Array(256);

/**
 * The column's bytes for postings [from, end) of parallel freq and norm arrays (a norm is a byte,
 * 0..255; a freq is >= 1 and fits int4). Most blocks a load writes are dominated by one posting (a
 * freq of 1 everywhere, or a short field that has the highest freq): one pass finds max_freq and
 * min_norm, a second stops at the posting that has both. Otherwise one pass records the best freq per
 * norm byte and one over the norm bytes between the block's shortest and longest keeps a pair when its
 * freq beats every shorter norm's.
 */
export function peakPairs(
  freqs: ArrayLike<number>,
  norms: ArrayLike<number>,
  from: number,
  end: number,
): Uint8Array {
  if (end <= from) throw new RangeError(`a posting block holds at least one posting: [${from}, ${end})`);
  let maxFreq = freqs[from]!;
  let minNorm = norms[from]!;
  for (let p = from + 1; p < end; p++) {
    if (freqs[p]! > maxFreq) maxFreq = freqs[p]!;
    if (norms[p]! < minNorm) minNorm = norms[p]!;
  }
  for (let p = from; p < end; p++) if (freqs[p] === maxFreq && norms[p] === minNorm) return EMPTY;
  let highNorm = 0;
  for (let p = from; p < end; p++) {
    const norm = norms[p]!;
    if (freqs[p]! > bestAtNorm[norm]!) bestAtNorm[norm] = freqs[p]!;
    if (norm > highNorm) highNorm = norm;
  }
  let count = 0;
  let best = 0;
  for (let n = minNorm; n <= highNorm && best < maxFreq; n++) {
    if (bestAtNorm[n]! > best) {
      best = bestAtNorm[n]!;
      count++;
    }
  }
  const out = new Uint8Array(count * PEAK_PAIR_BYTES);
  best = 0;
  for (let n = minNorm, at = 0; n <= highNorm; n++) {
    const freq = bestAtNorm[n]!;
    bestAtNorm[n] = 0;
    if (freq > best) {
      best = freq;
      out[at] = freq >>> 24;
      out[at + 1] = (freq >>> 16) & 0xff;
      out[at + 2] = (freq >>> 8) & 0xff;
      out[at + 3] = freq & 0xff;
      out[at + 4] = n;
      at += PEAK_PAIR_BYTES;
    }
  }
  return out;
}

const EMPTY = new Uint8Array(0);

/**
 * Visits a block's peak pairs: the one (maxFreq, minNorm) pair when `peaks` is empty, else the pairs
 * the column holds, in ascending freq order.
 */
export function forEachPeakPair(
  peaks: Uint8Array,
  maxFreq: number,
  minNorm: number,
  visit: (freq: number, norm: number) => void,
): void {
  if (peaks.length === 0) {
    visit(maxFreq, minNorm);
    return;
  }
  if (peaks.length % PEAK_PAIR_BYTES !== 0)
    throw new Error(`a block's peaks take a multiple of ${PEAK_PAIR_BYTES} bytes, not ${peaks.length}`);
  for (let at = 0; at < peaks.length; at += PEAK_PAIR_BYTES) {
    const freq =
      ((peaks[at]! << 24) >>> 0) + ((peaks[at + 1]! << 16) | (peaks[at + 2]! << 8) | peaks[at + 3]!);
    visit(freq, peaks[at + 4]!);
  }
}
