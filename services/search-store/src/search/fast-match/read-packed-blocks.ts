import { byteaLength, PgArrayError, readPackedHex } from './parse-pg-int-array';
import type { TermPostings } from './score-match-plan';

/** One posting block as the postings statement sends it (load-match-postings.ts): packed columns in bytea hex. */
export interface PackedBlock {
  base: number;
  offsets: string;
  freqs: string;
  norms: string;
  maxFreq: number;
  minNorm: number;
}

/**
 * A term's blocks (disjoint doc ranges) in doc order, parsed straight into one set of arrays, with
 * each block's end and best impact (block-max-top-k.ts).
 */
export function readBlocks(docFreq: number, blocks: PackedBlock[]): TermPostings {
  blocks.sort((a, b) => a.base - b.base);
  let n = 0;
  for (const b of blocks) n += byteaLength(b.norms); // a norm is one byte
  const postings = emptyPostings(docFreq, n, blocks.length);
  const { docs, freqs, norms } = postings;
  const { ends, maxFreq, minNorm } = postings.blocks;
  let at = 0;
  blocks.forEach((b, i) => {
    const size = byteaLength(b.norms);
    if (size === 0) throw new PgArrayError('an empty posting block');
    const next = readPackedHex(b.offsets, size, docs, at, b.base);
    readPackedHex(b.freqs, size, freqs, at);
    readPackedHex(b.norms, size, norms, at);
    at = next;
    ends[i] = next;
    maxFreq[i] = b.maxFreq;
    minNorm[i] = b.minNorm;
  });
  return postings;
}

/** Zeroed arrays for `postings` postings in `blocks` blocks, which a reader of packed blocks fills in doc order. */
export function emptyPostings(
  docFreq: number,
  postings: number,
  blocks: number,
): TermPostings & { blocks: NonNullable<TermPostings['blocks']> } {
  return {
    docFreq,
    docs: new Float64Array(postings),
    freqs: new Int32Array(postings),
    norms: new Uint8Array(postings),
    blocks: {
      ends: new Int32Array(blocks),
      maxFreq: new Int32Array(blocks),
      minNorm: new Uint8Array(blocks),
    },
  };
}
