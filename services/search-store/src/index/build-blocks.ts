/**
 * Cutting one term's postings into blocks of at most 128 documents (Lucene's block size), with the
 * per-block impact (highest freq, shortest norm) that block-max pruning reads. Pure: the SQL is in
 * posting-blocks.repo.ts.
 */
export const BLOCK_SIZE = 128;

/** doc_offsets are int4: a block never spans more doc keys than an int4 holds. */
const MAX_OFFSET = 2_147_483_647;

export interface Posting {
  docKey: number;
  freq: number;
  norm: number;
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

/** Postings in ascending doc key order → blocks, each full but the last. */
export function buildBlocks(postings: Posting[]): Block[] {
  const blocks: Block[] = [];
  let block: Block | undefined;
  for (const p of postings) {
    if (!block || block.offsets.length === BLOCK_SIZE || p.docKey - block.baseDocKey > MAX_OFFSET) {
      block = {
        baseDocKey: p.docKey,
        lastDocKey: p.docKey,
        offsets: [],
        freqs: [],
        norms: [],
        maxFreq: p.freq,
        minNorm: p.norm,
      };
      blocks.push(block);
    }
    block.offsets.push(p.docKey - block.baseDocKey);
    block.freqs.push(p.freq);
    block.norms.push(p.norm);
    block.lastDocKey = p.docKey;
    if (p.freq > block.maxFreq) block.maxFreq = p.freq;
    if (p.norm < block.minNorm) block.minNorm = p.norm;
  }
  return blocks;
}

/** How many of `postings` a tail block holding `size` documents from `baseDocKey` can still take. */
export function tailRoom(baseDocKey: number, size: number, postings: Posting[]): number {
  let room = 0;
  while (
    room < postings.length &&
    size + room < BLOCK_SIZE &&
    postings[room]!.docKey - baseDocKey <= MAX_OFFSET
  )
    room++;
  return room;
}

/** Postings appended to a term's tail block: the columns of one row of the tail UPDATE. */
export interface TailExtension {
  termId: string;
  /** The tail's base_doc_key (its key; an append keeps it, so the update can be HOT). */
  base: number;
  last: number;
  /** The appended offsets, freqs and norms as array literals (`{3,9}`), built in one pass. */
  offsets: string;
  freqs: string;
  norms: string;
  maxFreq: number;
  minNorm: number;
}

/** The first `count` postings as an append to the tail block based at `base`. */
export function tailExtension(
  termId: string,
  base: number,
  postings: Posting[],
  count: number,
): TailExtension {
  let offsets = '';
  let freqs = '';
  let norms = '';
  let maxFreq = 0;
  let minNorm = Infinity;
  for (let i = 0; i < count; i++) {
    const p = postings[i]!;
    const sep = i === 0 ? '' : ',';
    offsets += sep + (p.docKey - base);
    freqs += sep + p.freq;
    norms += sep + p.norm;
    if (p.freq > maxFreq) maxFreq = p.freq;
    if (p.norm < minNorm) minNorm = p.norm;
  }
  const last = postings[count - 1]!.docKey;
  return {
    termId,
    base,
    last,
    offsets: `{${offsets}}`,
    freqs: `{${freqs}}`,
    norms: `{${norms}}`,
    maxFreq,
    minNorm,
  };
}
