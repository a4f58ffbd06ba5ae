import type { BinaryCopy } from '../storage/copy-binary';
import { IntList } from './int-list';

/**
 * Cutting one term's postings into blocks of at most 128 documents (Lucene's block size), with the
 * per-block impact (highest freq, shortest norm) that block-max pruning reads. Pure: the SQL is in
 * posting-blocks.repo.ts.
 */
export const BLOCK_SIZE = 128;

/** doc_offsets are int4: a block never spans more doc keys than an int4 holds. */
const MAX_OFFSET = 2_147_483_647;

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

/** One posting_blocks row (all eleven columns, in table order) for the run's postings [from, end), by binary COPY. */
export function writeBlockRow(
  copy: BinaryCopy,
  indexId: number,
  termId: number,
  run: PostingRun,
  from: number,
  end: number,
  totals: TermTotals,
): void {
  const base = run.docKeys[from]!;
  let maxFreq = run.freqs[from]!;
  let minNorm = run.norms[from]!;
  for (let p = from + 1; p < end; p++) {
    if (run.freqs[p]! > maxFreq) maxFreq = run.freqs[p]!;
    if (run.norms[p]! < minNorm) minNorm = run.norms[p]!;
  }
  writeColumns(copy, indexId, termId, base, run.docKeys[end - 1]!, end - from, maxFreq, minNorm, totals, {
    offset: (i) => run.docKeys[from + i]! - base,
    freq: (i) => run.freqs[from + i]!,
    norm: (i) => run.norms[from + i]!,
  });
}

/** A block already built (the merge path) as one posting_blocks row. */
export function writeBlock(
  copy: BinaryCopy,
  indexId: number,
  termId: number,
  b: Block,
  totals: TermTotals,
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
    {
      offset: (i) => b.offsets[i]!,
      freq: (i) => b.freqs[i]!,
      norm: (i) => b.norms[i]!,
    },
  );
}

/** The eleven posting_blocks columns in table order (the COPY statement in posting-blocks.repo.ts lists them). */
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
  at: { offset(i: number): number; freq(i: number): number; norm(i: number): number },
): void {
  copy
    .row(11)
    .int8(indexId)
    .int8(termId)
    .int8(base)
    .int8(last)
    .int4Array(count, at.offset)
    .int4Array(count, at.freq)
    .int2Array(count, at.norm)
    .int4(maxFreq)
    .int2(minNorm)
    .int4(totals.docFreq)
    .int8(totals.totalTermFreq);
}

/** How many of a run's postings a tail block holding `size` documents from `baseDocKey` can still take. */
export function tailRoom(baseDocKey: number, size: number, run: PostingRun): number {
  let room = 0;
  while (
    run.start + room < run.end &&
    size + room < BLOCK_SIZE &&
    run.docKeys[run.start + room]! - baseDocKey <= MAX_OFFSET
  )
    room++;
  return room;
}

/**
 * Postings appended to terms' tail blocks, as the tail UPDATE's parameters: per tail its term, key
 * (base_doc_key: an append keeps it, so the update can be HOT), new last key, impacts and the slice
 * [from, to] (1-based, inclusive, as SQL slices) of three flat arrays holding every tail's offsets,
 * freqs and norms. Flat number arrays render as one literal each and Postgres parses each once; an
 * array literal per tail (a text[] of literals, each cast again) cost more on both sides.
 */
export class TailAppends {
  readonly termIds: number[] = [];
  readonly bases: number[] = [];
  readonly lasts: number[] = [];
  readonly from: number[] = [];
  readonly to: number[] = [];
  readonly maxFreqs: number[] = [];
  readonly minNorms: number[] = [];
  /** The term's totals after the batch (the tail may stay its last block). */
  readonly docFreqs: number[] = [];
  readonly totalTermFreqs: number[] = [];
  /** Per posting (typed lists: a batch appends ~10⁵ postings to tails, and arrays of boxed numbers
   * cost the garbage collector and their pushes most of the tail planning). */
  private readonly offsetList = new IntList(4096);
  private readonly freqList = new IntList(4096);
  private readonly normList = new IntList(4096);

  get size(): number {
    return this.termIds.length;
  }

  get offsets(): Int32Array {
    return this.offsetList.view();
  }

  get freqs(): Int32Array {
    return this.freqList.view();
  }

  get norms(): Int32Array {
    return this.normList.view();
  }

  /** The run's first `count` postings appended to the tail block based at `base`. */
  add(termId: number, base: number, run: PostingRun, count: number, totals: TermTotals): void {
    let maxFreq = 0;
    let minNorm = Infinity;
    this.from.push(this.offsetList.length + 1);
    for (let p = run.start; p < run.start + count; p++) {
      const freq = run.freqs[p]!;
      const norm = run.norms[p]!;
      this.offsetList.push(run.docKeys[p]! - base);
      this.freqList.push(freq);
      this.normList.push(norm);
      if (freq > maxFreq) maxFreq = freq;
      if (norm < minNorm) minNorm = norm;
    }
    this.to.push(this.offsetList.length);
    this.termIds.push(termId);
    this.bases.push(base);
    this.lasts.push(run.docKeys[run.start + count - 1]!);
    this.maxFreqs.push(maxFreq);
    this.minNorms.push(minNorm);
    this.docFreqs.push(totals.docFreq);
    this.totalTermFreqs.push(totals.totalTermFreq);
  }
}
