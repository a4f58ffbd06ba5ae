import fc from 'fast-check';
import { simpleMatch, simpleMatcher } from '../../src/text/simple-match';

/** The meaning the matcher must keep: the anchored regex with `*` → any characters (dotAll). */
function reference(pattern: string, text: string): boolean {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${body}$`).test(text);
}

describe('simpleMatch (Elasticsearch Regex.simpleMatch)', () => {
  it.each([
    ['', '', true],
    ['', 'a', false],
    ['*', '', true],
    ['*', 'anything.at.all', true],
    ['***', 'x', true],
    ['books', 'books', true],
    ['books', 'Books', false],
    ['books', 'book', false],
    ['book*', 'books', true],
    ['book*', 'book', true],
    ['*s', 'books', true],
    ['*s', 'book', false],
    ['b*s', 'bs', true],
    ['b*k*s', 'bookings', true],
    ['b*k*z', 'bookings', false],
    ['user.*', 'user.name', true],
    ['user.*', 'username', false],
    ['*.name', 'user.address.name', true],
    ['a*b*c', 'aXbYbZc', true],
    ['a*a*a', 'aa', false],
    ['a*a*a', 'aaa', true],
    ['*ab', 'aab', true],
    ['*ab*ab', 'xabyabab', true],
    ['a.b', 'aXb', false],
    ['a?b', 'aXb', false],
    ['a?b', 'a?b', true],
    ['[x]*', '[x]y', true],
    ['line*end', 'line\nend', true],
    ['é*ü', 'ééüü', true],
    ['😀*', '😀x', true],
  ])('%j against %j → %s', (pattern, text, expected) => {
    expect(simpleMatch(pattern, text)).toBe(expected);
    expect(simpleMatcher(pattern)(text)).toBe(expected);
    expect(reference(pattern, text)).toBe(expected);
  });

  it('agrees with the reference regex on small patterns and texts (property)', () => {
    const alphabet = fc.constantFrom('a', 'b', '.', '*');
    const small = (max: number) => fc.array(alphabet, { maxLength: max }).map((cs) => cs.join(''));
    fc.assert(
      // A `*` in the text is an ordinary character.
      fc.property(small(8), small(10), (pattern, text) => {
        expect(simpleMatch(pattern, text)).toBe(reference(pattern, text));
        expect(simpleMatcher(pattern)(text)).toBe(reference(pattern, text));
      }),
      { numRuns: 2000 },
    );
  });

  it('answers the backtracking bombs at once (the issue 17 payloads)', () => {
    const started = process.hrtime.bigint();
    expect(simpleMatch(`error.r${'*'.repeat(30)}z`, `error.r${'a'.repeat(5000)}`)).toBe(false);
    expect(simpleMatch(`${'a*'.repeat(200)}z`, 'a'.repeat(5000))).toBe(false);
    expect(simpleMatch(`${'*a'.repeat(200)}`, 'a'.repeat(5000))).toBe(true);
    // O(pattern × text) is ~2M steps here; a backtracking regex takes seconds to hours.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
  });
});
