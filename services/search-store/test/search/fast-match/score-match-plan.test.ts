import {
  advance,
  scoreMatchPlan,
  type MatchPostings,
  type TermPostings,
} from '../../../src/search/fast-match/score-match-plan';
import { seededRandom as random } from '../../support/seeded-random';

function postings(rnd: () => number, universe: number, density: number): TermPostings {
  const docs: number[] = [];
  for (let d = 1; d <= universe; d++) if (rnd() < density) docs.push(d * 3);
  return {
    docFreq: docs.length,
    docs: Float64Array.from(docs),
    freqs: Int32Array.from(docs, () => 1 + Math.floor(rnd() * 5)),
    norms: Uint8Array.from(docs, () => Math.floor(rnd() * 256)),
  };
}

describe('advance (galloping search over a posting list)', () => {
  const docs = Float64Array.from([2, 4, 4, 9, 15, 16, 30, 31, 40]);
  it.each([
    [0, 1, 0],
    [0, 2, 0],
    [0, 3, 1],
    [0, 4, 1],
    [0, 5, 3],
    [0, 16, 5],
    [0, 17, 6],
    [3, 9, 3],
    [3, 40, 8],
    [3, 41, 9],
    [9, 1, 9],
    [4, 2, 4],
  ])('from %i to the first document ≥ %i is at %i', (from, target, expected) => {
    expect(advance(docs, from, target)).toBe(expected);
  });

  it('agrees with a linear scan on random lists', () => {
    const rnd = random(7);
    for (let round = 0; round < 200; round++) {
      const list = postings(rnd, 300, rnd()).docs;
      const from = Math.floor(rnd() * (list.length + 1));
      const target = Math.floor(rnd() * 1000);
      let expected = from;
      while (expected < list.length && list[expected]! < target) expected++;
      expect(advance(list, from, target)).toBe(expected);
    }
  });
});

describe('match with every term required', () => {
  it('gives the documents and scores of the disjunction restricted to documents holding every term', () => {
    const rnd = random(20261124);
    for (let round = 0; round < 100; round++) {
      const count = 2 + Math.floor(rnd() * 3);
      const words = Array.from({ length: count }, (_, i) => `t${i}`);
      // One rare list among common ones, as match queries meet them; sometimes a repeated word.
      const terms = new Map<string, TermPostings>(
        words.map((w, i) => [
          `body\u0000${w}`,
          postings(rnd, 2000, i === 0 ? 0.01 + rnd() * 0.05 : 0.2 + rnd() * 0.7),
        ]),
      );
      const data: MatchPostings = {
        fields: new Map([['body', { docCount: 2000, sumTotalTermFreq: 2000 * 40 }]]),
        terms,
      };
      const query = rnd() < 0.3 ? [...words, words[1]!] : words;
      const boost = rnd() < 0.5 ? 1 : 2.5;
      const all = scoreMatchPlan(
        { kind: 'terms', path: 'body', terms: query, required: query.length, boost },
        data,
      );
      const any = scoreMatchPlan({ kind: 'terms', path: 'body', terms: query, required: 1, boost }, data);
      const everywhere = new Set(
        [...terms.values()].map((p) => [...p.docs]).reduce((a, b) => a.filter((d) => b.includes(d))),
      );
      const expected: [number, number][] = [];
      for (let i = 0; i < any.length; i++)
        if (everywhere.has(any.docs[i]!)) expected.push([any.docs[i]!, any.scores[i]!]);
      const actual: [number, number][] = [];
      for (let i = 0; i < all.length; i++) actual.push([all.docs[i]!, all.scores[i]!]);
      expect(actual).toEqual(expected);
      expect(actual.length).toBe(everywhere.size);
    }
  });
});
