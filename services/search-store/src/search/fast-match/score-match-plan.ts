import { avgFieldLength, idf, normInverseCache, termWeight } from '../../query/score/bm25';
import type { MatchNode } from './plan-fast-match';
import { compareTerms } from '../../query/compile/multi-term-rewrite';

/** One term's postings: doc keys ascending, with each document's term frequency and norm byte. */
export interface TermPostings {
  docFreq: number;
  docs: Float64Array;
  freqs: Int32Array;
  norms: Uint8Array;
  /**
   * The posting blocks the lists were read from (migration 0004): block i holds docs[ends[i-1] .. ends[i]),
   * none of its postings has a freq above maxFreq[i] or a norm byte below minNorm[i]. Absent: no pruning.
   */
  blocks?: PostingBlocks;
}

export interface PostingBlocks {
  ends: Int32Array;
  maxFreq: Int32Array;
  minNorm: Uint8Array;
}

/** What one snapshot of an index holds for a plan: field statistics and the query terms' postings. */
export interface MatchPostings {
  fields: Map<string, { docCount: number; sumTotalTermFreq: number }>;
  /** Keyed `path\u0000term`. */
  terms: Map<string, TermPostings>;
}

/** Matching documents in doc_key order with their float32 scores. */
export interface DocScores {
  docs: Float64Array;
  scores: Float64Array;
  length: number;
}

const f = Math.fround;
const EMPTY: DocScores = { docs: new Float64Array(0), scores: new Float64Array(0), length: 0 };

/**
 * Scores a plan over postings exactly as the SQL plans of compile-query.ts do: each term score in
 * float32 steps (bm25.ts termScore), clause scores summed in double and cast to float32 per query.
 * Sums of a few float32 values in double are exact, so the order of addition does not matter.
 */
export function scoreMatchPlan(node: MatchNode, data: MatchPostings): DocScores {
  switch (node.kind) {
    case 'none':
      return EMPTY;
    case 'terms':
      return scoreTerms(node, data);
    case 'any':
      return scoreAny(node, data);
    case 'fuzzy':
      return scoreFuzzy(node, data);
    case 'sum':
    case 'dis_max':
      return combine(
        node.parts.map((p) => scoreMatchPlan(p, data)),
        node.parts.map(() => SHOULD),
        1,
        node.kind === 'sum' ? sumScore : disMaxScore(node.tieBreaker),
      );
    case 'bool': {
      const lists = [...node.must, ...node.filter, ...node.should, ...node.mustNot].map((p) =>
        scoreMatchPlan(p, data),
      );
      const roles = [
        ...node.must.map(() => MUST),
        ...node.filter.map(() => FILTER),
        ...node.should.map(() => SHOULD),
        ...node.mustNot.map(() => MUST_NOT),
      ];
      return combine(lists, roles, node.minimumShouldMatch, sumScore);
    }
  }
}

/**
 * A `terms` node's clauses over one snapshot: each distinct present term's postings, BM25 weight and
 * multiplicity (a duplicated term is that many clauses), the clauses a document needs, and the
 * field's normInverse cache. Undefined when no document can match.
 */
export interface TermClauses {
  lists: TermPostings[];
  weights: number[];
  counts: number[];
  /** Clauses (counted with multiplicity) a document must match; `present` is every one of them. */
  required: number;
  present: number;
  normInverse: Float32Array;
}

export function termClauses(
  node: Extract<MatchNode, { kind: 'terms' }>,
  data: MatchPostings,
): TermClauses | undefined {
  const field = data.fields.get(node.path);
  if (!field) return undefined;
  const multiplicity = new Map<string, number>();
  for (const term of node.terms) {
    if (data.terms.has(`${node.path}\u0000${term}`))
      multiplicity.set(term, (multiplicity.get(term) ?? 0) + 1);
  }
  let present = 0;
  for (const m of multiplicity.values()) present += m;
  if (present < node.required || present === 0) return undefined;
  const avgdl = avgFieldLength(field);
  const normInverse = Float32Array.from(normInverseCache(avgdl));
  const lists: TermPostings[] = [];
  const weights: number[] = [];
  const counts: number[] = [];
  for (const [term, m] of multiplicity) {
    const postings = data.terms.get(`${node.path}\u0000${term}`)!;
    lists.push(postings);
    weights.push(termWeight(node.boost, idf(postings.docFreq, field.docCount)));
    counts.push(m);
  }
  return { lists, weights, counts, required: node.required, present, normInverse };
}

function scoreTerms(node: Extract<MatchNode, { kind: 'terms' }>, data: MatchPostings): DocScores {
  const c = termClauses(node, data);
  if (!c) return EMPTY;
  return c.present === c.required && c.lists.length > 1
    ? intersectTerms(c.lists, c.weights, c.counts, c.normInverse)
    : mergeTerms(c.lists, c.weights, c.counts, c.required, c.normInverse);
}

/**
 * compile-fuzzy.ts in Node: per clause the `size` present candidates of highest boost (ties: the
 * smaller term), each BM25 with the clause's largest document frequency times its boost (Lucene's
 * TopTermsBlendedFreqScoringRewrite), summed per clause; the clauses summed, `required` of them needed.
 */
function scoreFuzzy(node: Extract<MatchNode, { kind: 'fuzzy' }>, data: MatchPostings): DocScores {
  const field = data.fields.get(node.path);
  if (!field) return EMPTY;
  const normInverse = Float32Array.from(normInverseCache(avgFieldLength(field)));
  const parts = node.clauses.map((candidates) => {
    const kept = candidates
      .filter((c) => data.terms.has(`${node.path}\u0000${c.term}`))
      .sort((a, b) => b.boost - a.boost || compareTerms(a.term, b.term))
      .slice(0, node.size);
    if (kept.length === 0) return EMPTY;
    const lists = kept.map((c) => data.terms.get(`${node.path}\u0000${c.term}`)!);
    const maxDf = Math.max(...lists.map((l) => l.docFreq));
    const weights = kept.map((c) =>
      termWeight(f(node.boost * Math.max(0, c.boost)), idf(maxDf, field.docCount)),
    );
    return mergeTerms(
      lists,
      weights,
      kept.map(() => 1),
      1,
      normInverse,
    );
  });
  return combine(
    parts,
    parts.map(() => SHOULD),
    node.required,
    sumScore,
  );
}

/** Documents holding any of the terms, each scored the constant boost (compileTerms' `constant`). */
function scoreAny(node: Extract<MatchNode, { kind: 'any' }>, data: MatchPostings): DocScores {
  const lists: DocScores[] = [];
  for (const term of node.terms) {
    const postings = data.terms.get(`${node.path}\u0000${term}`);
    // Scores are not read: the constant replaces them below.
    if (postings) lists.push({ docs: postings.docs, scores: postings.docs, length: postings.docs.length });
  }
  if (lists.length === 0) return EMPTY;
  const union = combine(
    lists,
    lists.map(() => SHOULD),
    1,
    sumScore,
  );
  union.scores.fill(f(node.boost), 0, union.length);
  return union;
}

/** A document-at-a-time merge of the posting lists: each matching clause adds its BM25 term score. */
function mergeTerms(
  lists: TermPostings[],
  weights: number[],
  counts: number[],
  required: number,
  normInverse: Float32Array,
): DocScores {
  const k = lists.length;
  let capacity = 0;
  for (const l of lists) capacity += l.docs.length;
  const docs = new Float64Array(capacity);
  const scores = new Float64Array(capacity);
  const pos = new Int32Array(k);
  let n = 0;
  for (;;) {
    let min = Infinity;
    for (let i = 0; i < k; i++) {
      const l = lists[i]!;
      const p = pos[i]!;
      if (p < l.docs.length && l.docs[p]! < min) min = l.docs[p]!;
    }
    if (min === Infinity) break;
    let matched = 0;
    let sum = 0;
    for (let i = 0; i < k; i++) {
      const l = lists[i]!;
      const p = pos[i]!;
      if (p >= l.docs.length || l.docs[p] !== min) continue;
      const w = weights[i]!;
      // bm25.ts termScore: weight − weight / (1 + freq × normInverse[norm]), each step in float32.
      const ts = f(w - f(w / f(1 + f(l.freqs[p]! * normInverse[l.norms[p]!]!))));
      const m = counts[i]!;
      for (let c = 0; c < m; c++) sum += ts;
      matched += m;
      pos[i] = p + 1;
    }
    if (matched >= required) {
      docs[n] = min;
      scores[n] = f(sum);
      n++;
    }
  }
  return { docs, scores, length: n };
}

/**
 * mergeTerms when every clause is required (operator and): the shortest list leads and the others
 * gallop to each of its documents (Lucene's ConjunctionDISI), so a rare term with a common one costs
 * the rare term's length times a logarithm, not the common term's length. Same documents and scores.
 */
function intersectTerms(
  lists: TermPostings[],
  weights: number[],
  counts: number[],
  normInverse: Float32Array,
): DocScores {
  const k = lists.length;
  let lead = 0;
  for (let i = 1; i < k; i++) if (lists[i]!.docs.length < lists[lead]!.docs.length) lead = i;
  const leadDocs = lists[lead]!.docs;
  const docs = new Float64Array(leadDocs.length);
  const scores = new Float64Array(leadDocs.length);
  const pos = new Int32Array(k);
  let n = 0;
  candidates: for (let j = 0; j < leadDocs.length; j++) {
    const doc = leadDocs[j]!;
    pos[lead] = j;
    for (let i = 0; i < k; i++) {
      if (i === lead) continue;
      const list = lists[i]!.docs;
      const p = advance(list, pos[i]!, doc);
      pos[i] = p;
      if (p >= list.length) break candidates;
      if (list[p] !== doc) continue candidates;
    }
    let sum = 0;
    for (let i = 0; i < k; i++) {
      const l = lists[i]!;
      const p = pos[i]!;
      const w = weights[i]!;
      const ts = f(w - f(w / f(1 + f(l.freqs[p]! * normInverse[l.norms[p]!]!))));
      const m = counts[i]!;
      for (let c = 0; c < m; c++) sum += ts;
    }
    docs[n] = doc;
    scores[n] = f(sum);
    n++;
  }
  return { docs, scores, length: n };
}

/** The first position at or after `from` whose document is ≥ target: exponential, then binary search. */
export function advance(docs: Float64Array, from: number, target: number): number {
  if (from >= docs.length || docs[from]! >= target) return from;
  let low = from; // docs[low] < target
  let step = 1;
  let high = from + 1;
  while (high < docs.length && docs[high]! < target) {
    low = high;
    step *= 2;
    high = low + step;
  }
  if (high > docs.length) high = docs.length;
  let lo = low + 1;
  while (lo < high) {
    const mid = (lo + high) >>> 1;
    if (docs[mid]! < target) lo = mid + 1;
    else high = mid;
  }
  return lo;
}

const MUST = 0;
const FILTER = 1;
const SHOULD = 2;
const MUST_NOT = 3;

type Combiner = (sum: number, max: number) => number;

/** `sum(s::float8)::float4`: most_fields and bool (filters add nothing). */
const sumScore: Combiner = (sum) => f(sum);

/** compileMultiMatch's best_fields: `max + (sum − max) × tie_breaker` in double, cast to float4. */
function disMaxScore(tieBreaker: number): Combiner {
  const tie = f(tieBreaker);
  return tie === 0 ? (_sum, max) => max : (sum, max) => f(max + (sum - max) * tie);
}

/**
 * Merges child results: a document must be in every MUST and FILTER list, in at least `minShould`
 * SHOULD lists, and in no MUST_NOT list. Scores of MUST and SHOULD children are combined.
 */
function combine(lists: DocScores[], roles: number[], minShould: number, score: Combiner): DocScores {
  const k = lists.length;
  let required = 0;
  let capacity = 0;
  for (let i = 0; i < k; i++) {
    if (roles[i] === MUST || roles[i] === FILTER) required++;
    if (roles[i] !== MUST_NOT) capacity += lists[i]!.length;
  }
  const docs = new Float64Array(capacity);
  const scores = new Float64Array(capacity);
  const pos = new Int32Array(k);
  let n = 0;
  for (;;) {
    let min = Infinity;
    for (let i = 0; i < k; i++) {
      if (roles[i] === MUST_NOT) continue;
      const l = lists[i]!;
      const p = pos[i]!;
      if (p < l.length && l.docs[p]! < min) min = l.docs[p]!;
    }
    if (min === Infinity) break;
    let requiredSeen = 0;
    let shouldSeen = 0;
    let excluded = false;
    let sum = 0;
    let max = -Infinity;
    for (let i = 0; i < k; i++) {
      const l = lists[i]!;
      let p = pos[i]!;
      const role = roles[i]!;
      if (role === MUST_NOT) {
        while (p < l.length && l.docs[p]! < min) p++;
        pos[i] = p;
        if (p < l.length && l.docs[p] === min) excluded = true;
        continue;
      }
      if (p >= l.length || l.docs[p] !== min) continue;
      const s = l.scores[p]!;
      if (role === SHOULD) shouldSeen++;
      else requiredSeen++;
      if (role !== FILTER) {
        sum += s;
        if (s > max) max = s;
      }
      pos[i] = p + 1;
    }
    if (!excluded && requiredSeen === required && shouldSeen >= minShould) {
      docs[n] = min;
      scores[n] = score(sum, max);
      n++;
    }
  }
  return { docs, scores, length: n };
}
