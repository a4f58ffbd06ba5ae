import { termScore } from '../../query/score/bm25';
import { canSkip, collect, type TopCollector } from './block-max-top-k';
import type { MatchNode } from './plan-fast-match';
import { advance, termClauses, type MatchPostings, type TermPostings } from './score-match-plan';

const f = Math.fround;
const pad = (x: number): number => f(x + x * 2 ** -40);

const MUST = 0;
const FILTER = 1;
const SHOULD = 2;
const MUST_NOT = 3;

/** A posting list of the tree: a BM25 term clause, or a term of an unscored `any` node (weight unused). */
interface Leaf {
  list: TermPostings;
  weight: number;
  count: number;
  normInverse: Float32Array;
  /** Each block's bound on the leaf's score (times its multiplicity); zeros for `any` leaves. */
  bounds: Float64Array;
}

/** The scoring tree over leaves, as scoreMatchPlan evaluates it for one document. */
type Node =
  | { kind: 'none' }
  | { kind: 'terms'; leaves: number[]; required: number }
  | { kind: 'any'; leaves: number[]; score: number }
  | { kind: 'combine'; children: Node[]; roles: number[]; minShould: number; tie: number | undefined };

/**
 * Block-max top-k for the other shapes the fast path scores: multi_match (best_fields with its
 * tie_breaker, most_fields), bool with must/should/filter/must_not clauses, and match with a
 * minimum_should_match between one and all. Every term of the tree is one list; MaxScore's windows
 * (block-max-top-k.ts topOr) cut the doc space at the lists' block ends, and in a window the lists
 * whose bounds together cannot lift the tree over the bar are non-essential: only documents of the
 * others are candidates, probed in the non-essential lists when the tree's bound with their exact
 * scores and the others' bounds still could. The tree's bound is the tree evaluated over bounds: BM25
 * sums and `max + (sum − max) × tie_breaker` grow with every clause's score (tie_breaker in [0, 1],
 * weights ≥ 0), and filter and must_not clauses add nothing. A document's score is computed as
 * scoreMatchPlan computes it (the same float32 casts at the same nodes), so hits and scores are
 * unchanged. Answers false when it does not apply (a fuzzy node, a negative weight or boost, a
 * tie_breaker outside [0, 1]): the caller scores every match.
 */
export function collectTopTree(root: MatchNode, data: MatchPostings, c: TopCollector): boolean {
  const leaves: Leaf[] = [];
  const tree = build(root, data, leaves);
  if (!tree) return false;
  if (tree.kind === 'none' || leaves.length === 0) return true;
  topTree(tree, leaves, c);
  return true;
}

function build(node: MatchNode, data: MatchPostings, leaves: Leaf[]): Node | undefined {
  switch (node.kind) {
    case 'none':
      return { kind: 'none' };
    case 'fuzzy':
      return undefined;
    case 'terms': {
      const clauses = termClauses(node, data);
      if (!clauses) return { kind: 'none' };
      if (clauses.lists.some((l) => !l.blocks)) return undefined;
      if (clauses.weights.some((w) => !(w >= 0) || !Number.isFinite(w))) return undefined;
      const best = suffixMax(clauses.normInverse);
      const at: number[] = [];
      clauses.lists.forEach((list, i) => {
        const w = clauses.weights[i]!;
        const m = clauses.counts[i]!;
        const { maxFreq, minNorm } = list.blocks!;
        const bounds = new Float64Array(maxFreq.length);
        for (let b = 0; b < bounds.length; b++) bounds[b] = m * termScore(w, maxFreq[b]!, best[minNorm[b]!]!);
        at.push(leaves.length);
        leaves.push({ list, weight: w, count: m, normInverse: clauses.normInverse, bounds });
      });
      return { kind: 'terms', leaves: at, required: clauses.required };
    }
    case 'any': {
      const score = f(node.boost);
      if (!(score >= 0) || !Number.isFinite(score)) return undefined;
      const at: number[] = [];
      for (const term of node.terms) {
        const list = data.terms.get(`${node.path}\u0000${term}`);
        if (!list) continue;
        if (!list.blocks) return undefined;
        at.push(leaves.length);
        leaves.push({
          list,
          weight: 0,
          count: 0,
          normInverse: new Float32Array(0),
          bounds: new Float64Array(list.blocks.ends.length),
        });
      }
      return at.length === 0 ? { kind: 'none' } : { kind: 'any', leaves: at, score };
    }
    case 'sum':
    case 'dis_max': {
      const tie = node.kind === 'dis_max' ? f(node.tieBreaker) : undefined;
      if (tie !== undefined && !(tie >= 0 && tie <= 1)) return undefined;
      const children: Node[] = [];
      for (const part of node.parts) {
        const child = build(part, data, leaves);
        if (!child) return undefined;
        children.push(child);
      }
      return { kind: 'combine', children, roles: children.map(() => SHOULD), minShould: 1, tie };
    }
    case 'bool': {
      const children: Node[] = [];
      const roles: number[] = [];
      const groups: [MatchNode[], number][] = [
        [node.must, MUST],
        [node.filter, FILTER],
        [node.should, SHOULD],
        [node.mustNot, MUST_NOT],
      ];
      for (const [parts, role] of groups)
        for (const part of parts) {
          const child = build(part, data, leaves);
          if (!child) return undefined;
          children.push(child);
          roles.push(role);
        }
      return { kind: 'combine', children, roles, minShould: node.minimumShouldMatch, tie: undefined };
    }
  }
}

function suffixMax(normInverse: Float32Array): Float64Array {
  const best = new Float64Array(normInverse.length);
  for (let x = normInverse.length - 1, max = -Infinity; x >= 0; x--) {
    max = Math.max(max, normInverse[x]!);
    best[x] = max;
  }
  return best;
}

/**
 * A document's score as scoreMatchPlan gives it, from each leaf's presence and term score; NaN when
 * it does not match. mergeTerms: the clauses present (with multiplicity) ≥ required, their scores
 * summed and cast; scoreAny: the constant; combine: every must and filter child matched, at least
 * minShould should children, no must_not child, must and should scores summed (or dis_max) and cast.
 */
function evaluate(node: Node, hit: Uint8Array, ts: Float64Array, leaves: Leaf[]): number {
  switch (node.kind) {
    case 'none':
      return NaN;
    case 'terms': {
      let matched = 0;
      let sum = 0;
      for (const i of node.leaves) {
        if (!hit[i]) continue;
        const m = leaves[i]!.count;
        matched += m;
        for (let r = 0; r < m; r++) sum += ts[i]!;
      }
      return matched >= node.required ? f(sum) : NaN;
    }
    case 'any':
      for (const i of node.leaves) if (hit[i]) return node.score;
      return NaN;
    case 'combine': {
      let required = 0;
      let requiredSeen = 0;
      let shouldSeen = 0;
      // combine() yields only documents of some child's list.
      let seen = false;
      let sum = 0;
      let max = -Infinity;
      for (let x = 0; x < node.children.length; x++) {
        const role = node.roles[x]!;
        if (role === MUST || role === FILTER) required++;
        const s = evaluate(node.children[x]!, hit, ts, leaves);
        if (Number.isNaN(s)) continue;
        if (role === MUST_NOT) return NaN;
        seen = true;
        if (role === SHOULD) shouldSeen++;
        else requiredSeen++;
        if (role !== FILTER) {
          sum += s;
          if (s > max) max = s;
        }
      }
      if (!seen || requiredSeen !== required || shouldSeen < node.minShould) return NaN;
      if (node.tie === undefined) return f(sum);
      return node.tie === 0 ? max : f(max + (sum - max) * node.tie);
    }
  }
}

/**
 * The tree's bound when each leaf scores at most value[i] (0: absent): the same sums and casts over
 * the bounds, padded; a matching requirement is not checked (a bound may be loose, never low).
 */
function bound(node: Node, value: Float64Array, present: Uint8Array): number {
  switch (node.kind) {
    case 'none':
      return 0;
    case 'terms': {
      let sum = 0;
      for (const i of node.leaves) if (present[i]) sum += value[i]!;
      return pad(f(sum));
    }
    case 'any':
      for (const i of node.leaves) if (present[i]) return node.score;
      return 0;
    case 'combine': {
      let sum = 0;
      let max = 0;
      for (let x = 0; x < node.children.length; x++) {
        const role = node.roles[x]!;
        if (role === FILTER || role === MUST_NOT) continue;
        const s = bound(node.children[x]!, value, present);
        sum += s;
        if (s > max) max = s;
      }
      if (node.tie === undefined) return pad(f(sum));
      return pad(f(max + (sum - max) * node.tie));
    }
  }
}

function topTree(tree: Node, leaves: Leaf[], c: TopCollector): void {
  const k = leaves.length;
  const lists = leaves.map((l) => l.list);
  const pos = new Int32Array(k);
  const blk = new Int32Array(k);
  const windowBound = new Float64Array(k);
  const inWindow = new Uint8Array(k);
  const value = new Float64Array(k);
  const present = new Uint8Array(k);
  const order: number[] = [];
  const hit = new Uint8Array(k);
  const ts = new Float64Array(k);
  const scoreAt = (i: number, p: number): number => {
    const l = leaves[i]!;
    if (l.count === 0) return 0;
    const w = l.weight;
    return f(w - f(w / f(1 + f(l.list.freqs[p]! * l.normInverse[l.list.norms[p]!]!))));
  };
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
      inWindow[i] = pos[i]! < l.docs.length && l.docs[pos[i]!]! <= end ? 1 : 0;
      windowBound[i] = inWindow[i] ? leaves[i]!.bounds[blk[i]!]! : 0;
      if (inWindow[i]) order.push(i);
    }
    order.sort((a, b) => windowBound[a]! - windowBound[b]!);
    // The longest prefix (smallest bounds first) that cannot lift the tree over the bar on its own.
    present.fill(0);
    let nonEssential = 0;
    while (nonEssential < order.length) {
      const i = order[nonEssential]!;
      present[i] = 1;
      value[i] = windowBound[i]!;
      if (!canSkip(c, bound(tree, value, present))) break;
      nonEssential++;
    }
    if (nonEssential < order.length) {
      for (;;) {
        let d = Infinity;
        for (let e = nonEssential; e < order.length; e++) {
          const i = order[e]!;
          const l = lists[i]!;
          if (pos[i]! < l.docs.length && l.docs[pos[i]!]! < d) d = l.docs[pos[i]!]!;
        }
        if (d > end) break;
        hit.fill(0);
        present.fill(0);
        for (let e = nonEssential; e < order.length; e++) {
          const i = order[e]!;
          const l = lists[i]!;
          if (pos[i]! < l.docs.length && l.docs[pos[i]!] === d) {
            ts[i] = scoreAt(i, pos[i]!);
            hit[i] = 1;
            present[i] = 1;
            value[i] = ts[i]!;
            pos[i]!++;
          }
        }
        let go = nonEssential === 0;
        if (!go) {
          for (let e = 0; e < nonEssential; e++) {
            const i = order[e]!;
            present[i] = 1;
            value[i] = windowBound[i]!;
          }
          go = !canSkip(c, bound(tree, value, present));
        }
        if (go) {
          for (let e = nonEssential - 1; e >= 0; e--) {
            const i = order[e]!;
            const l = lists[i]!;
            const p = advance(l.docs, pos[i]!, d);
            pos[i] = p;
            if (p < l.docs.length && l.docs[p] === d) {
              ts[i] = scoreAt(i, p);
              hit[i] = 1;
              pos[i] = p + 1;
            }
          }
          const s = evaluate(tree, hit, ts, leaves);
          if (!Number.isNaN(s)) collect(c, d, s);
        }
      }
    }
    // Whatever is left of the window in the non-essential lists (all of it, when skipped whole).
    for (let e = 0; e < nonEssential; e++) {
      const i = order[e]!;
      pos[i] = advance(lists[i]!.docs, pos[i]!, end + 1);
    }
  }
}
