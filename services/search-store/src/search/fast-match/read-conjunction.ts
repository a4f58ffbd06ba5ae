import { postingsAt } from './postings-at';
import { cachedListBytes } from './postings-cache';
import { readBlocks, type PackedBlock } from './read-packed-blocks';
import type { TermPostings } from './score-match-plan';

/** One term of a conjunction as the postings statement answered it: held postings, or its blocks. */
export interface ConjunctionTerm {
  key: string;
  termId: number;
  docFreq: number;
  /** The postings cache's list, still at the term's current version: nothing was sent for it. */
  held?: TermPostings;
  blocks: PackedBlock[];
}

/**
 * A term at least this many times longer than the rarest is read only at the rarest term's documents
 * (postings-at.ts): measured at 1M documents, a binary search in a block costs about what parsing 4
 * of its postings does (parsing and scoring the 141 multi-word AND queries took 3.8 ms each, not 7.8).
 */
const SPARSE_RATIO = 4;

/**
 * The postings of a conjunction (match with operator and: every term required), keyed as
 * MatchPostings.terms. The rarest term (fewest documents, then the lowest term id, as the
 * conjunction statement picks it) is parsed whole; a term much longer than it is looked up only at
 * the documents that still hold every term before it (postings-at.ts): at a million documents the
 * common term of a query holds ~100,000 postings while the rarest holds a few thousand, and parsing
 * every posting of it cost more than its transfer (issue 23). Such a list is partial (its docFreq is
 * still the term's, for BM25), so block-max pruning is off and every match is scored: there are at
 * most as many as the rarest list has documents. Scores and totals are those of the whole lists.
 *
 * Lists the postings cache can keep without evicting anything (`room` bytes) are parsed whole
 * instead, so that the next search finds them there (postings-cache.ts keeps only whole lists).
 */
export function readConjunction(entries: ConjunctionTerm[], room: number): Map<string, TermPostings> {
  const out = new Map<string, TermPostings>();
  if (entries.length === 0) return out;
  const sorted = [...entries].sort((a, b) => a.docFreq - b.docFreq || a.termId - b.termId);
  const rare = sorted[0]!;
  const rareList = rare.held ?? readBlocks(rare.docFreq, rare.blocks);
  out.set(rare.key, rareList);
  const sparse: ConjunctionTerm[] = [];
  for (const e of sorted.slice(1)) {
    if (e.held) {
      out.set(e.key, e.held);
    } else if (rare.docFreq * SPARSE_RATIO <= e.docFreq && cachedListBytes(e.docFreq) > room) {
      sparse.push(e);
    } else {
      out.set(e.key, readBlocks(e.docFreq, e.blocks));
      room -= cachedListBytes(e.docFreq);
    }
  }
  // Shortest first: each looks up only the documents every list before it holds.
  let candidates = rareList.docs;
  for (const e of sparse) {
    const list = postingsAt(e.docFreq, e.blocks, candidates);
    out.set(e.key, list);
    candidates = list.docs;
  }
  return out;
}
