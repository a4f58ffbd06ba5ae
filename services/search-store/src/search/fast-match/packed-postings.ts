import type { PostingBlocks, TermPostings } from './score-match-plan';

/**
 * A term's postings as the postings cache keeps them (postings-cache.ts): in chunks of CHUNK postings,
 * each chunk's first doc key whole, the gaps to the next ones and the freqs at the fewest bytes that
 * hold the chunk's largest (1 to 4), norms as they are (a byte each). Decoded a posting takes 13
 * bytes (doc key float64, freq int32, norm); packed, a common term's (gaps under 256, freqs under
 * 256) takes 3. At 1M documents the 356 words of the bench's queries hold 18.5M postings: 240 MB
 * decoded, far past the cache's default 64 MB, so most searches read their lists from Postgres again
 * (an OR search with every list held took a third of the time of one reading them: issue 23). Lucene
 * keeps postings compressed in memory for the same reason (its doc-delta and freq blocks, decoded
 * per search); unpacking a list of 100,000 postings takes a fraction of a millisecond.
 */
export interface PackedPostings {
  docFreq: number;
  /** Postings held: docFreq for every list the cache keeps. */
  length: number;
  /** Per chunk, its first doc key. */
  firsts: Float64Array;
  /** Per chunk, the byte width of its gaps (low nibble) and of its freqs (high nibble). */
  widths: Uint8Array;
  /** Per chunk in order: its gaps (one fewer than its postings), then its freqs, big-endian. */
  data: Uint8Array;
  norms: Uint8Array;
  blocks?: PostingBlocks;
}

const CHUNK = 128;

/** Bytes a packed list takes, for the cache's accounting. */
export function packedBytes(p: PackedPostings): number {
  return (
    p.firsts.byteLength + p.widths.byteLength + p.data.byteLength + p.norms.byteLength + blocksBytes(p.blocks)
  );
}

/** Bytes a list's block bounds take (packed and decoded lists share them). */
export function blocksBytes(b: PostingBlocks | undefined): number {
  return b ? b.ends.byteLength + b.maxFreq.byteLength + b.minNorm.byteLength : 0;
}

/**
 * The list packed, or undefined when it cannot be: doc keys not integers in ascending order with gaps
 * under 2^32, or freqs not integers from 0 to 2^32 (the cache then keeps it decoded).
 */
export function packPostings(list: TermPostings): PackedPostings | undefined {
  const { docs, freqs } = list;
  const n = docs.length;
  const chunks = Math.ceil(n / CHUNK);
  const firsts = new Float64Array(chunks);
  const widths = new Uint8Array(chunks);
  // Widths first, so the data is allocated once at its size.
  let size = 0;
  for (let c = 0; c < chunks; c++) {
    const from = c * CHUNK;
    const to = Math.min(n, from + CHUNK);
    const first = docs[from]!;
    if (!Number.isSafeInteger(first)) return undefined;
    firsts[c] = first;
    let maxGap = 0;
    let maxFreq = 0;
    let prev = first;
    for (let i = from; i < to; i++) {
      const freq = freqs[i]!;
      if (!(freq >= 0)) return undefined;
      if (freq > maxFreq) maxFreq = freq;
    }
    for (let i = from + 1; i < to; i++) {
      const doc = docs[i]!;
      const gap = doc - prev;
      prev = doc;
      // `>>> 0` keeps exactly the integers from 0 to 2^32 - 1: one test for fractional, negative and too wide.
      if (gap >>> 0 !== gap || gap === 0) return undefined;
      if (gap > maxGap) maxGap = gap;
    }
    const gapWidth = widthOf(maxGap);
    const freqWidth = widthOf(maxFreq);
    widths[c] = gapWidth | (freqWidth << 4);
    size += gapWidth * (to - from - 1) + freqWidth * (to - from);
  }
  const data = new Uint8Array(size);
  let at = 0;
  for (let c = 0; c < chunks; c++) {
    const from = c * CHUNK;
    const to = Math.min(n, from + CHUNK);
    const gapWidth = widths[c]! & 15;
    const freqWidth = widths[c]! >> 4;
    // Nearly every chunk is widths 1 and 2: their loops store without the general one's inner loop.
    // Gaps are below 2^32 and freqs int32 ≥ 0 (checked above), so `>>>` takes their bytes exactly.
    if (gapWidth === 1) for (let i = from + 1; i < to; i++) data[at++] = docs[i]! - docs[i - 1]!;
    else if (gapWidth === 2)
      for (let i = from + 1; i < to; i++, at += 2) {
        const gap = docs[i]! - docs[i - 1]!;
        data[at] = gap >>> 8;
        data[at + 1] = gap;
      }
    else for (let i = from + 1; i < to; i++) at = put(data, at, docs[i]! - docs[i - 1]!, gapWidth);
    if (freqWidth === 1) for (let i = from; i < to; i++) data[at++] = freqs[i]!;
    else for (let i = from; i < to; i++) at = put(data, at, freqs[i]!, freqWidth);
  }
  return {
    docFreq: list.docFreq,
    length: n,
    firsts,
    widths,
    data,
    norms: list.norms,
    ...(list.blocks ? { blocks: list.blocks } : {}),
  };
}

/**
 * The list decoded into fresh arrays, or into `into`'s (p.length elements each: unpack-buffers.ts), as
 * the scorer's TermPostings; norms and blocks are shared, read-only.
 */
export function unpackPostings(
  p: PackedPostings,
  into?: { docs: Float64Array; freqs: Int32Array },
): TermPostings {
  const n = p.length;
  const docs = into?.docs ?? new Float64Array(n);
  const freqs = into?.freqs ?? new Int32Array(n);
  if (docs.length !== n || freqs.length !== n) throw new RangeError(`arrays for ${n} postings expected`);
  const { firsts, widths, data } = p;
  let at = 0;
  for (let c = 0; c < firsts.length; c++) {
    const from = c * CHUNK;
    const to = Math.min(n, from + CHUNK);
    const gapWidth = widths[c]! & 15;
    const freqWidth = widths[c]! >> 4;
    let doc = firsts[c]!;
    docs[from] = doc;
    // Widths 1 and 2 are nearly every chunk: their loops read the bytes without the general one's inner loop.
    if (gapWidth === 1) {
      for (let i = from + 1; i < to; i++) docs[i] = doc += data[at++]!;
    } else if (gapWidth === 2) {
      for (let i = from + 1; i < to; i++, at += 2) docs[i] = doc += data[at]! * 256 + data[at + 1]!;
    } else {
      for (let i = from + 1; i < to; i++) {
        let gap = 0;
        for (let b = 0; b < gapWidth; b++) gap = gap * 256 + data[at++]!;
        docs[i] = doc += gap;
      }
    }
    if (freqWidth === 1) {
      for (let i = from; i < to; i++) freqs[i] = data[at++]!;
    } else {
      for (let i = from; i < to; i++) {
        let freq = 0;
        for (let b = 0; b < freqWidth; b++) freq = freq * 256 + data[at++]!;
        freqs[i] = freq;
      }
    }
  }
  return { docFreq: p.docFreq, docs, freqs, norms: p.norms, ...(p.blocks ? { blocks: p.blocks } : {}) };
}

function widthOf(max: number): number {
  return max < 256 ? 1 : max < 65536 ? 2 : max < 16777216 ? 3 : 4;
}

/** `value` (below 2^32) big-endian in `width` bytes; a Uint8Array store keeps a value's low byte. */
function put(out: Uint8Array, at: number, value: number, width: number): number {
  for (let b = width - 1; b >= 0; b--) out[at + width - 1 - b] = value >>> (8 * b);
  return at + width;
}
