import type { BinaryCopy } from '../storage/copy-binary';
import { peakPairs } from './block-peak-pairs';

/**
 * Cutting one term's postings into blocks of at most 128 documents (Lucene's block size), with the
 * per-block impact (highest freq, shortest norm) and peaks (the Pareto front of its (freq, norm) pairs,
 * block-peak-pairs.ts) that block-max pruning reads. Pure: the SQL is in posting-blocks.repo.ts.
 */
export const BLOCK_SIZE = 128;

/**
 * The merge policy's segments per tier: a term's run of blocks written with fewer than BLOCK_SIZE
 * documents (one per batch that met the term) is merged into full blocks once it holds this many
 * (index/segment-merge.ts). Migration 0030's partial index has the same number in its predicate
 * (runs at a multiple of it).
 */
export const MERGE_AT = 8;

/** The small_run of a block of `size` documents written after a block whose small_run is `previous`. */
export function smallRunAfter(previous: number, size: number): number {
  return size < BLOCK_SIZE ? previous + 1 : 0;
}

/**
 * A block's offsets are read as int4 in SQL (migration 0030's posting_int): a block never spans more
 * doc keys than an int4 holds.
 */
const MAX_OFFSET = 2_147_483_647;

/**
 * The bytes per value of a packed column (migration 0030): the fewest, 1 to 4, that hold `max`, the
 * column's largest value in the block (the offsets' is the last, last_doc_key - base_doc_key; the
 * freqs' is max_freq; norms are SmallFloat bytes, always 1). SQL's posting_bytes has the same rule.
 */
export function packedWidth(max: number): 1 | 2 | 3 | 4 {
  return max < 0x100 ? 1 : max < 0x10000 ? 2 : max < 0x1000000 ? 3 : 4;
}

/** Value i of a packed column of `width` bytes a value (big-endian, unsigned). */
export function packedAt(bytes: Uint8Array, width: number, i: number): number {
  let value = 0;
  for (let b = i * width, end = b + width; b < end; b++) value = value * 256 + bytes[b]!;
  return value;
}

/** A block's postings from its packed columns as node-pg returns them (bytea as Buffers). */
export function unpackBlock(
  offsets: Uint8Array,
  freqs: Uint8Array,
  norms: Uint8Array,
): { offsets: number[]; freqs: number[]; norms: number[] } {
  const n = norms.length;
  const offsetWidth = offsets.length / n;
  const freqWidth = freqs.length / n;
  if (n === 0 || !Number.isInteger(offsetWidth) || !Number.isInteger(freqWidth))
    throw new Error(
      `a posting block's packed columns disagree: ${offsets.length}, ${freqs.length}, ${n} bytes`,
    );
  const out = { offsets: new Array<number>(n), freqs: new Array<number>(n), norms: Array.from(norms) };
  for (let i = 0; i < n; i++) {
    out.offsets[i] = packedAt(offsets, offsetWidth, i);
    out.freqs[i] = packedAt(freqs, freqWidth, i);
  }
  return out;
}

/** One term's postings in ascending doc key order: [start, end) of three parallel arrays. */
export interface PostingRun {
  docKeys: ArrayLike<number>;
  freqs: ArrayLike<number>;
  norms: ArrayLike<number>;
  start: number;
  end: number;
}

export interface Block {
  baseDocKey: number;
  lastDocKey: number;
  offsets: number[];
  freqs: number[];
  norms: number[];
  maxFreq: number;
  minNorm: number;
  /** posting_blocks.peaks (migration 0032): empty when (maxFreq, minNorm) is a posting's. */
  peaks: Uint8Array;
}

/** Where the block that starts at posting `from` ends (exclusive): 128 postings, or an offset past int4. */
export function blockEnd(run: PostingRun, from: number): number {
  const base = run.docKeys[from]!;
  const limit = Math.min(run.end, from + BLOCK_SIZE);
  let end = from + 1;
  while (end < limit && run.docKeys[end]! - base <= MAX_OFFSET) end++;
  return end;
}

/** Postings in ascending doc key order → blocks, each full but the last. */
export function buildBlocks(run: PostingRun): Block[] {
  const blocks: Block[] = [];
  for (let from = run.start; from < run.end;) {
    const end = blockEnd(run, from);
    const base = run.docKeys[from]!;
    const block: Block = {
      baseDocKey: base,
      lastDocKey: run.docKeys[end - 1]!,
      offsets: [],
      freqs: [],
      norms: [],
      maxFreq: run.freqs[from]!,
      minNorm: run.norms[from]!,
      peaks: peakPairs(run.freqs, run.norms, from, end),
    };
    for (let p = from; p < end; p++) {
      block.offsets.push(run.docKeys[p]! - base);
      block.freqs.push(run.freqs[p]!);
      block.norms.push(run.norms[p]!);
      if (run.freqs[p]! > block.maxFreq) block.maxFreq = run.freqs[p]!;
      if (run.norms[p]! < block.minNorm) block.minNorm = run.norms[p]!;
    }
    blocks.push(block);
    from = end;
  }
  return blocks;
}

/** A term's document frequency and total term frequency, carried by its last block (migration 0010). */
export interface TermTotals {
  docFreq: number;
  totalTermFreq: number;
}

/** One posting_blocks row (all thirteen columns, in table order) for the run's postings [from, end), by binary COPY. */
export function writeBlockRow(
  copy: BinaryCopy,
  indexId: number,
  termId: number,
  run: PostingRun,
  from: number,
  end: number,
  totals: TermTotals,
  smallRun: number,
): void {
  const base = run.docKeys[from]!;
  let maxFreq = run.freqs[from]!;
  let minNorm = run.norms[from]!;
  for (let p = from + 1; p < end; p++) {
    if (run.freqs[p]! > maxFreq) maxFreq = run.freqs[p]!;
    if (run.norms[p]! < minNorm) minNorm = run.norms[p]!;
  }
  writeColumns(
    copy,
    indexId,
    termId,
    base,
    run.docKeys[end - 1]!,
    end - from,
    maxFreq,
    minNorm,
    totals,
    smallRun,
    peakPairs(run.freqs, run.norms, from, end),
    {
      offset: (i) => run.docKeys[from + i]! - base,
      freq: (i) => run.freqs[from + i]!,
      norm: (i) => run.norms[from + i]!,
    },
  );
}

/** A block already built (the merge path) as one posting_blocks row. */
export function writeBlock(
  copy: BinaryCopy,
  indexId: number,
  termId: number,
  b: Block,
  totals: TermTotals,
  smallRun: number,
): void {
  writeColumns(
    copy,
    indexId,
    termId,
    b.baseDocKey,
    b.lastDocKey,
    b.offsets.length,
    b.maxFreq,
    b.minNorm,
    totals,
    smallRun,
    b.peaks,
    {
      offset: (i) => b.offsets[i]!,
      freq: (i) => b.freqs[i]!,
      norm: (i) => b.norms[i]!,
    },
  );
}

/**
 * The thirteen posting_blocks columns in table order (the COPY statements in posting-blocks.repo.ts
 * and segment-merge.ts list them); offsets, freqs and norms packed at the block's widths (migration
 * 0030); peaks last (migration 0032).
 */
function writeColumns(
  copy: BinaryCopy,
  indexId: number,
  termId: number,
  base: number,
  last: number,
  count: number,
  maxFreq: number,
  minNorm: number,
  totals: TermTotals,
  smallRun: number,
  peaks: Uint8Array,
  at: { offset(i: number): number; freq(i: number): number; norm(i: number): number },
): void {
  copy
    .row(13)
    .int8(indexId)
    .int8(termId)
    .int8(base)
    .int8(last)
    .packed(count, packedWidth(last - base), at.offset)
    .packed(count, packedWidth(maxFreq), at.freq)
    .packed(count, 1, at.norm)
    .int4(maxFreq)
    .int2(minNorm)
    .int4(totals.docFreq)
    .int8(totals.totalTermFreq)
    .int2(smallRun)
    .packed(peaks.length, 1, (i) => peaks[i]!);
}
