import { blockPeaks } from './block-peaks';
import type { MatchNode } from './plan-fast-match';
import { advance, termClauses, type MatchPostings, type TermClauses } from './score-match-plan';
import type { TopDocsHeap } from './top-docs-heap';

const f = Math.fround;

/**
 * Where a search's matches go: the heap of the best from+size, the count Elasticsearch reports and
 * the best score. Shared by every index of the search, so the bar a document must clear rises
 * across them.
 */
export interface TopCollector {
  heap: TopDocsHeap;
  /** The index's rank in the SQL path's tie order (execute-fast-search.ts). */
  shard: number;
  /** Matches counted (those with score ≥ minScore): exact while it is ≤ limit. */
  total: number;
  /**
   * track_total_hits: every match is counted until there are more than this many; from then on a
   * document that cannot enter the heap may be skipped unscored and uncounted (the total is then
   * reported as `limit`, relation `gte`). Infinity: count everything, skip nothing.
   */
  limit: number;
  minScore: number | undefined;
  /**
   * The matches of the terms being collected were counted before they were scored (one term: its
   * postings; any of several past `limit`: the longest list), so documents are not counted as they
   * come and one that cannot enter the heap may be skipped from the first.
   */
  counted?: boolean;
  maxScore: number;
  /** Documents whose score was computed: what pruning saves shows here (tests). */
  scored: number;
}

function collect(c: TopCollector, doc: number, score: number): void {
  c.scored++;
  if (c.minScore !== undefined && !(score >= c.minScore)) return;
  if (!c.counted) c.total++;
  if (score > c.maxScore) c.maxScore = score;
  c.heap.offer(score, c.shard, doc);
}

/**
 * Whether documents whose score is at most `bound` can be left out: they could not reach min_score,
 * or every match has been counted as far as track_total_hits asks and they could not enter the heap.
 * Scores are float32 values summed in double (exact for a few of them) and cast: the bound, a sum of
 * upper bounds of the same terms, cast the same way is ≥ the score (every step is monotonic); it is
 * padded by 2^-40 first against a double sum in another order rounding differently. A document
 * whose score equals the heap's worst ranks after it and is not kept either: documents come in
 * (index, doc) order, indices in the SQL path's order (rankPlans), so every kept one is earlier.
 */
function canSkip(c: TopCollector, bound: number): boolean {
  const score = f(bound + bound * 2 ** -40);
  if (c.minScore !== undefined && score < c.minScore) return true;
  return (c.counted === true || c.total > c.limit) && score <= c.heap.threshold;
}

/**
 * Block-max top-k for a `terms` node (match: OR, AND; a scored term): scores only the documents that
 * could enter the top from+size, using each posting block's best impact (its max_freq and min_norm,
 * migration 0004) as an upper bound, as Lucene's block-max WAND and MaxScore do (Ding & Suel,
 * "Faster top-k document retrieval using block-max indexes", SIGIR 2011). The documents it scores
 * get the exact float32 scores of scoreMatchPlan, summed in the same order, so hits, scores and
 * max_score are unchanged; only `total` stops being exact past track_total_hits, as in Elasticsearch.
 * Documents must come in (index, doc) order across calls (canSkip).
 * Answers false when it does not apply (no block data, a negative weight, minimum_should_match
 * between one and all): the caller scores every match instead.
 */
export function collectTopTerms(
  node: Extract<MatchNode, { kind: 'terms' }>,
  data: MatchPostings,
  c: TopCollector,
): boolean {
  const clauses = termClauses(node, data);
  if (!clauses) return true;
  if (clauses.lists.some((l) => !l.blocks)) return false;
  if (clauses.weights.some((w) => !(w >= 0) || !Number.isFinite(w))) return false;
  if (clauses.required === 1 || clauses.lists.length === 1) {
    topOr(clauses, c);
    return true;
  }
  if (clauses.required === clauses.present) {
    topAnd(clauses, c);
    return true;
  }
  return false;
}

/**
 * Each block's bound: the largest term score of its postings, from the block's peak impact
 * (block-peaks.ts: termScore is non-decreasing in it), times the term's multiplicity.
 */
function blockBounds(clauses: TermClauses): Float64Array[] {
  return clauses.lists.map((list, i) => {
    const peaks = blockPeaks(list, clauses.normInverse);
    const w = clauses.weights[i]!;
    const m = clauses.counts[i]!;
    const out = new Float64Array(peaks.length);
    for (let b = 0; b < out.length; b++) out[b] = m * f(w - f(w / f(1 + peaks[b]!)));
    return out;
  });
}

/** score-match-plan.ts's term score, the same float32 steps. */
function scoreAt(clauses: TermClauses, i: number, p: number): number {
  const l = clauses.lists[i]!;
  const w = clauses.weights[i]!;
  return f(w - f(w / f(1 + f(l.freqs[p]! * clauses.normInverse[l.norms[p]!]!))));
}

/** The final score as mergeTerms sums it: clause order, each term's score `multiplicity` times. */
function sumInOrder(clauses: TermClauses, hit: Uint8Array, ts: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < hit.length; i++) {
    if (!hit[i]) continue;
    const m = clauses.counts[i]!;
    for (let r = 0; r < m; r++) sum += ts[i]!;
  }
  return f(sum);
}

/**
 * Any of the terms: windows of the doc space cut at the first end among the lists' current blocks,
 * so that within one each list's bound is its current block's. In a window the lists whose bounds
 * together cannot clear the bar are non-essential (MaxScore, Turtle & Flood 1995): only documents of
 * the others are candidates, and the non-essential lists are probed for a candidate only when its
 * partial score plus their bounds still could. A window no list can lift is skipped whole.
 */
function topOr(clauses: TermClauses, c: TopCollector): void {
  const { lists } = clauses;
  const k = lists.length;
  const bounds = blockBounds(clauses);
  const pos = new Int32Array(k);
  const blk = new Int32Array(k);
  const windowBound = new Float64Array(k);
  const order: number[] = [];
  const hit = new Uint8Array(k);
  const ts = new Float64Array(k);
  for (;;) {
    let start = Infinity;
    for (let i = 0; i < k; i++) {
      const l = lists[i]!;
      if (pos[i]! < l.docs.length && l.docs[pos[i]!]! < start) start = l.docs[pos[i]!]!;
    }
    if (start === Infinity) return;
    let end = Infinity;
    for (let i = 0; i < k; i++) {
      const l = lists[i]!;
      if (pos[i]! >= l.docs.length) continue;
      const ends = l.blocks!.ends;
      while (ends[blk[i]!]! <= pos[i]!) blk[i]!++;
      const last = l.docs[ends[blk[i]!]! - 1]!;
      if (last < end) end = last;
    }
    order.length = 0;
    for (let i = 0; i < k; i++) {
      const l = lists[i]!;
      if (pos[i]! < l.docs.length && l.docs[pos[i]!]! <= end) {
        windowBound[i] = bounds[i]![blk[i]!]!;
        order.push(i);
      }
    }
    // Least bound per posting first (Lucene's MaxScoreBulkScorer sorts by max score / cost): a long
    // list of a common word goes non-essential before a short one whose bound is a little lower, so
    // the candidates come from the short list and the long one is only probed or jumped over.
    order.sort((a, b) => windowBound[a]! * lists[b]!.docs.length - windowBound[b]! * lists[a]!.docs.length);
    // The longest prefix in that order that cannot clear the bar on its own.
    let nonEssential = 0;
    let nonEssentialBound = 0;
    while (nonEssential < order.length) {
      const next = nonEssentialBound + windowBound[order[nonEssential]!]!;
      if (!canSkip(c, next)) break;
      nonEssentialBound = next;
      nonEssential++;
    }
    if (nonEssential === order.length - 1) {
      oneEssential(clauses, c, order, nonEssential, nonEssentialBound, end, pos, hit, ts);
    } else if (nonEssential < order.length) {
      for (;;) {
        let d = Infinity;
        for (let e = nonEssential; e < order.length; e++) {
          const i = order[e]!;
          const l = lists[i]!;
          if (pos[i]! < l.docs.length && l.docs[pos[i]!]! < d) d = l.docs[pos[i]!]!;
        }
        if (d > end) break;
        let partial = 0;
        for (let e = nonEssential; e < order.length; e++) {
          const i = order[e]!;
          const l = lists[i]!;
          if (pos[i]! < l.docs.length && l.docs[pos[i]!] === d) {
            ts[i] = scoreAt(clauses, i, pos[i]!);
            partial += ts[i]! * clauses.counts[i]!;
            hit[i] = 1;
            pos[i]!++;
          }
        }
        if (nonEssential === 0 || !canSkip(c, partial + nonEssentialBound)) {
          for (let e = nonEssential - 1; e >= 0; e--) {
            const i = order[e]!;
            const l = lists[i]!;
            const p = advance(l.docs, pos[i]!, d);
            pos[i] = p;
            if (p < l.docs.length && l.docs[p] === d) {
              ts[i] = scoreAt(clauses, i, p);
              hit[i] = 1;
              pos[i] = p + 1;
            }
          }
          collect(c, d, sumInOrder(clauses, hit, ts));
        }
        hit.fill(0);
      }
    }
    // Whatever is left of the window in the non-essential lists (all of it, when skipped whole).
    for (let e = 0; e < nonEssential; e++) {
      const i = order[e]!;
      pos[i] = advance(lists[i]!.docs, pos[i]!, end + 1);
    }
  }
}

/**
 * topOr's window when one list is essential (the others, order[0 .. nonEssential), are bounded by
 * nonEssentialBound together): its documents are the candidates, in order. A candidate's score
 * grows with its impact freq × normInverse (block-peaks.ts) and the bar only rises, so once an
 * impact has been found too low to clear it in this window, a posting whose impact is no higher is
 * passed over without being scored: on a common word most postings are a few such impacts.
 */
function oneEssential(
  clauses: TermClauses,
  c: TopCollector,
  order: number[],
  nonEssential: number,
  nonEssentialBound: number,
  end: number,
  pos: Int32Array,
  hit: Uint8Array,
  ts: Float64Array,
): void {
  const { lists, normInverse } = clauses;
  const i = order[nonEssential]!;
  const { docs, freqs, norms } = lists[i]!;
  const m = clauses.counts[i]!;
  let tooLow = -Infinity;
  let p = pos[i]!;
  for (; p < docs.length && docs[p]! <= end; p++) {
    const x = f(freqs[p]! * normInverse[norms[p]!]!);
    if (x <= tooLow) continue;
    const score = scoreAt(clauses, i, p);
    if (canSkip(c, score * m + nonEssentialBound)) {
      tooLow = x;
      continue;
    }
    const d = docs[p]!;
    ts[i] = score;
    hit[i] = 1;
    for (let e = nonEssential - 1; e >= 0; e--) {
      const j = order[e]!;
      const other = lists[j]!.docs;
      const q = advance(other, pos[j]!, d);
      pos[j] = q;
      if (q < other.length && other[q] === d) {
        ts[j] = scoreAt(clauses, j, q);
        hit[j] = 1;
        pos[j] = q + 1;
      }
    }
    collect(c, d, sumInOrder(clauses, hit, ts));
    hit.fill(0);
  }
  pos[i] = p;
}

/**
 * Every term: the shortest list leads (as intersectTerms); at each of its documents the lists' blocks
 * holding it give a bound, and when that cannot clear the bar the lead jumps past the first end among
 * those blocks (Lucene's BlockMaxConjunctionScorer), without probing any list.
 */
function topAnd(clauses: TermClauses, c: TopCollector): void {
  const { lists } = clauses;
  const k = lists.length;
  const bounds = blockBounds(clauses);
  let lead = 0;
  for (let i = 1; i < k; i++) if (lists[i]!.docs.length < lists[lead]!.docs.length) lead = i;
  const leadDocs = lists[lead]!.docs;
  const pos = new Int32Array(k);
  const blk = new Int32Array(k);
  const hit = new Uint8Array(k).fill(1);
  const ts = new Float64Array(k);
  // The window [its first candidate, upTo] in which every list stays in one block, and its bound:
  // recomputed only when the lead leaves it, so a conjunction that cannot prune costs little more
  // than intersectTerms.
  let upTo = -Infinity;
  let bound = 0;
  // The bar when the window was last checked: rechecked only when it has risen (or min_score alone).
  let checked = NaN;
  let j = 0;
  candidates: while (j < leadDocs.length) {
    const d = leadDocs[j]!;
    if (d > upTo) {
      checked = NaN;
      bound = 0;
      upTo = Infinity;
      for (let i = 0; i < k; i++) {
        const l = lists[i]!;
        const ends = l.blocks!.ends;
        while (blk[i]! < ends.length && l.docs[ends[blk[i]!]! - 1]! < d) blk[i]!++;
        // No block of this term reaches d: no document from here on has every term.
        if (blk[i]! === ends.length) return;
        bound += bounds[i]![blk[i]!]!;
        const last = l.docs[ends[blk[i]!]! - 1]!;
        if (last < upTo) upTo = last;
      }
    }
    const bar = c.total > c.limit ? c.heap.threshold : -Infinity;
    if (bar !== checked) {
      checked = bar;
      if (canSkip(c, bound)) {
        j = advance(leadDocs, j, upTo + 1);
        continue;
      }
    }
    pos[lead] = j;
    for (let i = 0; i < k; i++) {
      if (i === lead) continue;
      const docs = lists[i]!.docs;
      const p = advance(docs, pos[i]!, d);
      pos[i] = p;
      if (p >= docs.length) return;
      if (docs[p] !== d) {
        j = advance(leadDocs, j, docs[p]!);
        continue candidates;
      }
    }
    for (let i = 0; i < k; i++) ts[i] = scoreAt(clauses, i, pos[i]!);
    collect(c, d, sumInOrder(clauses, hit, ts));
    j++;
  }
}
