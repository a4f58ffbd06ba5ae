import { LevenshteinAutomaton } from '../../src/text/levenshtein-automaton';
import { seededRandom } from '../support/seeded-random';

/** The oracle: the full edit-distance table, with the optimal-string-alignment transposition rule. */
function editDistance(a: string[], b: string[], transpositions: boolean): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (transpositions && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

function randomWord(random: () => number, alphabet: string[], max: number): string {
  const length = Math.floor(random() * (max + 1));
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
}

describe('LevenshteinAutomaton (Lucene LevenshteinAutomata semantics)', () => {
  it.each([
    ['quick', 'quick', 2, true, 0],
    ['quick', 'quack', 2, true, 1],
    ['quick', 'qiuck', 2, true, 1],
    ['quick', 'qiuck', 2, false, 2],
    ['quick', 'qiuck', 1, false, -1],
    ['ab', 'ba', 1, true, 1],
    ['ab', 'ba', 1, false, -1],
    ['', 'ab', 2, true, 2],
    ['abc', '', 2, true, -1],
    ['ca', 'abc', 2, true, -1], // restricted Damerau: no edit inside a transposed pair (true Damerau gives 2)
    ['😀a', 'a😀', 1, true, 1], // code points, not UTF-16 units
  ])('%s ~ %s within %d (transpositions %s) is %d', (query, term, k, transpositions, expected) => {
    expect(new LevenshteinAutomaton(query, k, transpositions).distance(term)).toBe(expected);
  });

  it('refuses more than two edits, as Lucene does', () => {
    expect(() => new LevenshteinAutomaton('abc', 3, true)).toThrow(RangeError);
  });

  it.each([true, false])(
    'agrees with the full edit-distance table on 20,000 random pairs (transpositions %s)',
    (transpositions) => {
      const random = seededRandom(transpositions ? 21 : 42);
      const alphabet = ['a', 'b', 'c', '😀'];
      for (let n = 0; n < 20000; n++) {
        const query = randomWord(random, alphabet, 7);
        const term = randomWord(random, alphabet, 7);
        const k = Math.floor(random() * 3);
        const expected = editDistance([...query], [...term], transpositions);
        const got = new LevenshteinAutomaton(query, k, transpositions).distance(term);
        if (got !== (expected <= k ? expected : -1)) {
          throw new Error(`${query} ~ ${term} (k=${k}): ${got}, expected ${expected}`);
        }
      }
    },
  );

  it('decides a long term in time linear in its length', () => {
    const automaton = new LevenshteinAutomaton('a'.repeat(50), 2, true);
    const term = 'a'.repeat(50) + 'b'.repeat(100_000);
    const started = performance.now();
    expect(automaton.distance(term)).toBe(-1);
    expect(automaton.distance('a'.repeat(49) + 'ba')).toBe(1);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
