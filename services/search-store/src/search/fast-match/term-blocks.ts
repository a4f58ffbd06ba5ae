import type { TermPostings } from './score-match-plan';

/** One posting block's decoded contents: doc keys ascending, each one's freq and norm byte. */
export interface BlockContents {
  docs: Float64Array;
  freqs: Int32Array;
  norms: Uint8Array;
}

/**
 * A term of one index as the fast path knows it: its block directory, always whole (each block's
 * first and last doc key, max_freq and min_norm: migration 0004), and the contents of the blocks read
 * so far. The directory is enough to bound every block's scores (block-max-top-k.ts), so a block is
 * read only when one of its documents could still make the page (choose-blocks.ts), as Lucene decodes
 * a block only when its impacts say it may be competitive. Blocks are disjoint and ascending; any size
 * up to 128 (a fresh segment's blocks may be small until merged).
 */
export interface TermBlocks {
  termId: string;
  /** The dictionary's version of the term (postings-cache.ts): equal versions, equal blocks. */
  version: string;
  docFreq: number;
  base: Float64Array;
  last: Float64Array;
  maxFreq: Int32Array;
  minNorm: Uint8Array;
  contents: (BlockContents | undefined)[];
  /** The contents read so far. */
  loaded: number;
  /** Assembled once every block is read (assembleTerm), so a whole cached term is not copied per search. */
  whole?: TermPostings;
  /** The last assembly of some of the blocks, reused while no block is added. */
  assembled?: { loaded: number; postings: TermPostings };
}

/** The block of `entry` whose [base, last] holds `doc`, or -1 (binary search over the directory). */
export function blockContaining(entry: TermBlocks, doc: number): number {
  const { base, last } = entry;
  let lo = 0;
  let hi = base.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (last[mid]! < doc) lo = mid + 1;
    else if (base[mid]! > doc) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** The position of `doc` in a block's docs, or -1. */
export function positionIn(docs: Float64Array, doc: number): number {
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const d = docs[mid]!;
    if (d < doc) lo = mid + 1;
    else if (d > doc) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/**
 * The term's postings from the blocks read so far, concatenated in doc order, each block with its
 * end, max_freq and min_norm; docFreq stays the term's (BM25's idf). With every block read it is the
 * whole list, kept on the entry.
 */
export function assembleTerm(entry: TermBlocks): TermPostings {
  if (entry.whole) return entry.whole;
  if (entry.assembled?.loaded === entry.loaded) return entry.assembled.postings;
  let n = 0;
  let blocks = 0;
  for (const c of entry.contents) {
    if (!c) continue;
    n += c.docs.length;
    blocks++;
  }
  const docs = new Float64Array(n);
  const freqs = new Int32Array(n);
  const norms = new Uint8Array(n);
  const ends = new Int32Array(blocks);
  const maxFreq = new Int32Array(blocks);
  const minNorm = new Uint8Array(blocks);
  let at = 0;
  let b = 0;
  entry.contents.forEach((c, i) => {
    if (!c) return;
    docs.set(c.docs, at);
    freqs.set(c.freqs, at);
    norms.set(c.norms, at);
    at += c.docs.length;
    ends[b] = at;
    maxFreq[b] = entry.maxFreq[i]!;
    minNorm[b++] = entry.minNorm[i]!;
  });
  const postings: TermPostings = {
    docFreq: entry.docFreq,
    docs,
    freqs,
    norms,
    blocks: { ends, maxFreq, minNorm },
  };
  if (entry.loaded === entry.base.length) {
    // The blocks become views of the whole list: the contents are held once.
    let start = 0;
    entry.contents.forEach((_, i) => {
      const end = ends[i]!;
      entry.contents[i] = {
        docs: docs.subarray(start, end),
        freqs: freqs.subarray(start, end),
        norms: norms.subarray(start, end),
      };
      start = end;
    });
    entry.whole = postings;
    entry.assembled = undefined;
  } else {
    entry.assembled = { loaded: entry.loaded, postings };
  }
  return postings;
}

/** Bytes a term entry holds: the directory and the contents read. */
export function directoryBytes(blocks: number): number {
  return 160 + blocks * (8 + 8 + 4 + 1 + 8);
}

/** A block's bytes, counted twice: the search's assembly of some blocks (assembleTerm) copies them. */
export function contentBytes(c: BlockContents): number {
  return 64 + 2 * c.docs.length * (8 + 4 + 1);
}
