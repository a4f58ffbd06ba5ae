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
