import { collectTopTerms, type TopCollector } from '../../../src/search/fast-match/block-max-top-k';
import type { MatchNode } from '../../../src/search/fast-match/plan-fast-match';
import {
  scoreMatchPlan,
  termClauses,
  type MatchPostings,
  type TermPostings,
} from '../../../src/search/fast-match/score-match-plan';
import { TopDocsHeap } from '../../../src/search/fast-match/top-docs-heap';
import { termScore } from '../../../src/query/score/bm25';
import { seededRandom as random } from '../../support/seeded-random';

/**
 * Block-max pruning against exhaustive scoring (scoreMatchPlan, every match into the same heap): the
 * same page, scores and max_score bit for bit, the same total as track_total_hits reports it; and
 * fewer documents scored once the count is past track_total_hits.
 */
const UNIVERSE = 40_000;

/** A term in about `density` of the documents, cut into blocks of 128 with their max_freq / min_norm. */
function postings(rnd: () => number, density: number, maxFreq: number): TermPostings {
  const docs: number[] = [];
  for (let d = 1; d <= UNIVERSE; d++) if (rnd() < density) docs.push(d);
  // Mostly 1, sometimes 2, in rare bursts more: most blocks' best impact is well below the term's best.
  const freqs = Int32Array.from(docs, () => {
    const r = rnd();
    return r < 0.003 ? 3 + Math.floor(rnd() * maxFreq) : r < 0.1 ? 2 : 1;
  });
  // Norm bytes of short to long fields; the long tail makes block bounds differ.
  const norms = Uint8Array.from(docs, () => 40 + Math.floor(rnd() * 120));
  const n = Math.ceil(docs.length / 128);
  const ends = Int32Array.from({ length: n }, (_, b) => Math.min(docs.length, (b + 1) * 128));
  const blockMax = Int32Array.from({ length: n }, (_, b) => Math.max(...freqs.subarray(b * 128, ends[b])));
  const blockMin = Uint8Array.from({ length: n }, (_, b) => Math.min(...norms.subarray(b * 128, ends[b])));
  return {
    docFreq: docs.length,
    docs: Float64Array.from(docs),
    freqs,
    norms,
    blocks: { ends, maxFreq: blockMax, minNorm: blockMin },
  };
}

function data(rnd: () => number): MatchPostings {
  return {
    fields: new Map([['body', { docCount: UNIVERSE, sumTotalTermFreq: UNIVERSE * 90 }]]),
    terms: new Map([
      ['body\u0000common', postings(rnd, 0.6, 4)],
      ['body\u0000usual', postings(rnd, 0.3, 6)],
      ['body\u0000rare', postings(rnd, 0.01, 12)],
      ['body\u0000odd', postings(rnd, 0.002, 3)],
    ]),
  };
}

interface Outcome {
  page: { score: number; shard: number; doc: number }[];
  total: number;
  maxScore: number;
  scored: number;
}

function collector(size: number, limit: number, minScore?: number): TopCollector {
  return {
    heap: new TopDocsHeap(size),
    shard: 0,
    total: 0,
    limit,
    minScore,
    maxScore: -Infinity,
    scored: 0,
  };
}

function pruned(
  node: MatchNode & { kind: 'terms' },
  d: MatchPostings,
  size: number,
  limit: number,
  min?: number,
): Outcome {
  const c = collector(size, limit, min);
  expect(collectTopTerms(node, d, c)).toBe(true);
  return { page: c.heap.sorted(), total: c.total, maxScore: c.maxScore, scored: c.scored };
}

function exhaustive(node: MatchNode, d: MatchPostings, size: number, min?: number): Outcome {
  const c = collector(size, Infinity, min);
  const { docs, scores, length } = scoreMatchPlan(node, d);
  for (let j = 0; j < length; j++) {
    if (min !== undefined && !(scores[j]! >= min)) continue;
    c.total++;
    c.maxScore = Math.max(c.maxScore, scores[j]!);
    c.heap.offer(scores[j]!, 0, docs[j]!);
  }
  return { page: c.heap.sorted(), total: c.total, maxScore: c.maxScore, scored: length };
}

/** hits.total as Elasticsearch reports it for a count and a track_total_hits limit. */
const reported = (total: number, limit: number) =>
  total > limit ? { value: limit, relation: 'gte' } : { value: total, relation: 'eq' };

const terms = (list: string[], required: number, boost = 1): MatchNode & { kind: 'terms' } => ({
  kind: 'terms',
  path: 'body',
  terms: list,
  required,
  boost,
});

describe('block-max top-k over posting blocks', () => {
  const d = data(random(20261126));

  it('bounds every posting of every block by the block bound', () => {
    const clauses = termClauses(terms(['common', 'usual', 'rare', 'odd'], 1), d)!;
    const best = Array.from(clauses.normInverse, (_, x) => Math.max(...clauses.normInverse.subarray(x)));
    clauses.lists.forEach((list, i) => {
      const w = clauses.weights[i]!;
      let start = 0;
      list.blocks!.ends.forEach((end, b) => {
        const bound = termScore(w, list.blocks!.maxFreq[b]!, best[list.blocks!.minNorm[b]!]!);
        for (let p = start; p < end; p++)
          expect(termScore(w, list.freqs[p]!, clauses.normInverse[list.norms[p]!]!)).toBeLessThanOrEqual(
            bound,
          );
        start = end;
      });
    });
  });

  // How much is skipped depends on how far block bounds fall below the bar: a rare term's few blocks
  // each hold one of its bursts; two frequent terms' blocks nearly all hold a freq-2 posting.
  it.each([
    ['OR of a frequent and a rare term', ['common', 'rare'], 1, 0.5],
    ['OR of four terms, one repeated', ['common', 'usual', 'rare', 'odd', 'rare'], 1, 0.5],
    ['one frequent term', ['common'], 1, 0.5],
    ['AND of two frequent terms', ['common', 'usual'], 2, undefined],
    ['AND of a frequent and a rare term', ['common', 'rare'], 2, undefined],
  ] as const)('%s: the same page as scoring every match', (_name, list, required, scoredAtMost) => {
    const node = terms([...list], required, 1.5);
    const all = exhaustive(node, d, 10);
    const top = pruned(node, d, 10, 10);
    expect(top.page).toEqual(all.page);
    expect(top.maxScore).toBe(all.maxScore);
    expect(reported(top.total, 10)).toEqual(reported(all.total, 10));
    expect(all.total).toBeGreaterThan(200);
    if (scoredAtMost !== undefined) expect(top.scored).toBeLessThan(all.total * scoredAtMost);
  });

  it('agrees with exhaustive scoring on random requests (sizes, limits, min_score, boosts)', () => {
    const rnd = random(42);
    const pool = ['common', 'usual', 'rare', 'odd', 'missing'];
    let skipped = 0;
    for (let i = 0; i < 150; i++) {
      const list = Array.from(
        { length: 1 + Math.floor(rnd() * 4) },
        () => pool[Math.floor(rnd() * pool.length)]!,
      );
      const and = rnd() < 0.35;
      const node = terms(list, and ? list.length : 1, [1, 0.5, 2.2, 0][Math.floor(rnd() * 4)]);
      const size = [0, 1, 10, 10, 40][Math.floor(rnd() * 5)]!;
      const limit = [0, 5, 100, 10_000][Math.floor(rnd() * 4)]!;
      const min = rnd() < 0.2 ? [0.5, 2, 4][Math.floor(rnd() * 3)] : undefined;
      const all = exhaustive(node, d, size, min);
      const c = collector(size, limit, min);
      if (!collectTopTerms(node, d, c)) continue;
      const context = JSON.stringify({ list, and, size, limit, min });
      expect({ context, page: c.heap.sorted() }).toEqual({ context, page: all.page });
      if (size > 0 && all.total > 0)
        expect({ context, max: c.maxScore }).toEqual({ context, max: all.maxScore });
      expect({ context, total: reported(c.total, limit) }).toEqual({
        context,
        total: reported(all.total, limit),
      });
      if (c.scored < all.scored) skipped++;
    }
    expect(skipped).toBeGreaterThan(50);
  });

  it('AND skips the blocks whose bounds cannot clear the bar, ties included', () => {
    // Two terms in every document, freq 1 (equal scores: ties) but for a few documents with freq 9.
    const docs = Array.from({ length: 5000 }, (_, i) => i + 1);
    const burst = new Set([700, 2100, 4000]);
    const list = (): TermPostings => {
      const freqs = Int32Array.from(docs, (doc) => (burst.has(doc) ? 9 : 1));
      const n = Math.ceil(docs.length / 128);
      const ends = Int32Array.from({ length: n }, (_, b) => Math.min(docs.length, (b + 1) * 128));
      return {
        docFreq: docs.length,
        docs: Float64Array.from(docs),
        freqs,
        norms: Uint8Array.from(docs, () => 50),
        blocks: {
          ends,
          maxFreq: Int32Array.from({ length: n }, (_, b) => Math.max(...freqs.subarray(b * 128, ends[b]))),
          minNorm: new Uint8Array(n).fill(50),
        },
      };
    };
    const flat: MatchPostings = {
      fields: new Map([['body', { docCount: 10_000, sumTotalTermFreq: 500_000 }]]),
      terms: new Map([
        ['body\u0000a', list()],
        ['body\u0000b', list()],
      ]),
    };
    const node = terms(['a', 'b'], 2);
    const all = exhaustive(node, flat, 10);
    const top = pruned(node, flat, 10, 10);
    expect(top.page).toEqual(all.page);
    expect(top.page.slice(0, 3).map((p) => p.doc)).toEqual([700, 2100, 4000]);
    expect(top.scored).toBeLessThan(500);
  });

  it('scores every match when the total must be exact (track_total_hits true)', () => {
    const node = terms(['common', 'rare'], 1);
    const all = exhaustive(node, d, 10);
    const top = pruned(node, d, 10, Infinity);
    expect(top).toEqual(all);
  });

  it('with size 0 counts only past track_total_hits and scores nothing more', () => {
    const top = pruned(terms(['common', 'usual'], 1), d, 0, 100);
    expect(top.total).toBeGreaterThan(100);
    // Past the count, whole windows are skipped: at most the window in progress is scored.
    expect(top.scored).toBeLessThan(101 + 256);
    expect(top.page).toEqual([]);
  });

  it('leaves minimum_should_match between one and all, and missing block data, to exhaustive scoring', () => {
    expect(collectTopTerms(terms(['common', 'usual', 'rare'], 2), d, collector(10, 0))).toBe(false);
    const bare: MatchPostings = {
      fields: d.fields,
      terms: new Map([['body\u0000common', { ...d.terms.get('body\u0000common')!, blocks: undefined }]]),
    };
    expect(collectTopTerms(terms(['common'], 1), bare, collector(10, 0))).toBe(false);
  });
});
