import {
  compileRegexp,
  DEFAULT_MAX_DETERMINIZED_STATES,
  TooComplexToDeterminizeError,
  type RegexpOptions,
} from '../../src/text/regexp-automaton';
import { REGEXP_FLAGS, RegexpSyntaxError } from '../../src/text/regexp-syntax';
import { seededRandom } from '../support/seeded-random';

const ALL: RegexpOptions = {
  flags: REGEXP_FLAGS.ALL,
  caseInsensitive: false,
  maxDeterminizedStates: DEFAULT_MAX_DETERMINIZED_STATES,
};
const matches = (pattern: string, term: string, options = ALL): boolean =>
  compileRegexp(pattern, options).matches(term);

/** A random expression tree, rendered to Lucene syntax and decided by brute force (the oracle). */
type Tree =
  | { t: 'lit'; c: string }
  | { t: 'any' }
  | { t: 'class'; chars: string; negated: boolean }
  | { t: 'alt' | 'cat' | 'and'; a: Tree; b: Tree }
  | { t: 'star' | 'plus' | 'opt' | 'not'; a: Tree }
  | { t: 'rep'; a: Tree; min: number; max: number }
  | { t: 'anyString' }
  | { t: 'empty' };

const ALPHABET = ['a', 'b', 'c'];

function randomTree(random: () => number, depth: number): Tree {
  const pick = Math.floor(random() * (depth <= 0 ? 4 : 13));
  const sub = (): Tree => randomTree(random, depth - 1);
  switch (pick) {
    case 0:
    case 1:
      return { t: 'lit', c: ALPHABET[Math.floor(random() * 3)]! };
    case 2:
      return { t: 'any' };
    case 3:
      return {
        t: 'class',
        chars: ALPHABET.filter(() => random() < 0.5).join('') || 'a',
        negated: random() < 0.5,
      };
    case 4:
    case 5:
      return { t: 'cat', a: sub(), b: sub() };
    case 6:
      return { t: 'alt', a: sub(), b: sub() };
    case 7:
      return { t: 'star', a: sub() };
    case 8:
      return { t: random() < 0.5 ? 'plus' : 'opt', a: sub() };
    case 9: {
      const min = Math.floor(random() * 3);
      return { t: 'rep', a: sub(), min, max: min + Math.floor(random() * 2) };
    }
    case 10:
      return { t: 'and', a: sub(), b: sub() };
    case 11:
      return { t: 'not', a: sub() };
    default:
      return random() < 0.5 ? { t: 'anyString' } : { t: 'empty' };
  }
}

function render(tree: Tree): string {
  switch (tree.t) {
    case 'lit':
      return tree.c;
    case 'any':
      return '.';
    case 'class':
      return `[${tree.negated ? '^' : ''}${tree.chars}]`;
    case 'alt':
      return `(${render(tree.a)}|${render(tree.b)})`;
    case 'cat':
      return `(${render(tree.a)}${render(tree.b)})`;
    case 'and':
      return `(${render(tree.a)}&${render(tree.b)})`;
    case 'star':
      return `(${render(tree.a)})*`;
    case 'plus':
      return `(${render(tree.a)})+`;
    case 'opt':
      return `(${render(tree.a)})?`;
    case 'not':
      return `(~(${render(tree.a)}))`;
    case 'rep':
      return `(${render(tree.a)}){${tree.min},${tree.max}}`;
    case 'anyString':
      return '@';
    case 'empty':
      return '#';
  }
}

function member(tree: Tree, s: string): boolean {
  const splits = (f: (x: string, y: string) => boolean): boolean => {
    for (let k = 0; k <= s.length; k++) if (f(s.slice(0, k), s.slice(k))) return true;
    return false;
  };
  switch (tree.t) {
    case 'lit':
      return s === tree.c;
    case 'any':
      return s.length === 1;
    case 'class':
      return s.length === 1 && tree.chars.includes(s) !== tree.negated;
    case 'alt':
      return member(tree.a, s) || member(tree.b, s);
    case 'and':
      return member(tree.a, s) && member(tree.b, s);
    case 'cat':
      return splits((x, y) => member(tree.a, x) && member(tree.b, y));
    case 'not':
      return !member(tree.a, s);
    case 'opt':
      return s === '' || member(tree.a, s);
    case 'star':
      return s === '' || splits((x, y) => x !== '' && member(tree.a, x) && member(tree, y));
    case 'plus':
      return splits((x, y) => member(tree.a, x) && member({ t: 'star', a: tree.a }, y));
    case 'rep':
      if (tree.max === 0) return s === '';
      if (tree.min === 0 && s === '') return true;
      return splits(
        (x, y) =>
          member(tree.a, x) &&
          member({ t: 'rep', a: tree.a, min: Math.max(0, tree.min - 1), max: tree.max - 1 }, y),
      );
    case 'anyString':
      return true;
    case 'empty':
      return false;
  }
}

function allStrings(maxLength: number): string[] {
  const out = [''];
  let level = [''];
  for (let n = 1; n <= maxLength; n++) {
    level = level.flatMap((s) => [...ALPHABET, 'd'].map((c) => s + c));
    out.push(...level);
  }
  return out;
}

describe('compileRegexp (Lucene RegExp as a DFA)', () => {
  it.each([
    ['ki.*y', 'kimchy', true],
    ['ki.*y', 'kimchi', false],
    ['k[a-j]m', 'kim', true],
    ['k[^a-j]m', 'kim', false],
    ['"a.b"', 'a.b', true],
    ['"a.b"', 'axb', false],
    ['a\\.b', 'a.b', true],
    ['a{2,3}', 'aaa', true],
    ['a{2,3}', 'aaaa', false],
    ['a{2,}', 'aaaaa', true],
    ['@&~(abc.+)', 'abcd', false],
    ['@&~(abc.+)', 'abd', true],
    ['aaa.+&.+bbb', 'aaabbb', true],
    ['foo<1-100>', 'foo37', true],
    ['foo<1-100>', 'foo0037', true],
    ['foo<1-100>', 'foo101', false],
    ['<01-10>', '07', true],
    ['<01-10>', '7', false],
    ['<0-5>', '0', true],
    ['<0-5>', '', false],
    ['#|a', 'a', true],
    ['\\d+\\s\\w', '12 x', true],
    ['\\W', 'a', false],
    ['()', '', true],
    ['😀.', '😀x', true],
  ])('%s on %s is %s', (pattern, term, expected) => {
    expect(matches(pattern, term)).toBe(expected);
  });

  it('treats the optional operators as literals when their flag is off', () => {
    const none = { ...ALL, flags: REGEXP_FLAGS.NONE };
    expect(matches('a@', 'a@', none)).toBe(true);
    expect(matches('a@', 'abc', none)).toBe(false);
    expect(matches('a&b', 'a&b', none)).toBe(true);
    expect(matches('~a', '~a', none)).toBe(true);
    expect(matches('a&b', 'a&b', { ...ALL, flags: REGEXP_FLAGS.COMPLEMENT })).toBe(true);
  });

  it('folds ASCII case only with case_insensitive', () => {
    const ci = { ...ALL, caseInsensitive: true };
    expect(matches('KiM.*', 'kimchy', ci)).toBe(true);
    expect(matches('KiM.*', 'kimchy')).toBe(false);
    expect(matches('É', 'é', ci)).toBe(false);
  });

  it.each([
    ['a(b', "expected ')' at position 3"],
    ['[ab', "expected ']' at position 3"],
    ['a{x}', 'integer expected at position 2'],
    ['a{1', "expected '}' at position 3"],
    ['a)', 'end-of-string expected at position 1'],
    ['"ab', `expected '"' at position 3`],
    ['a\\', 'unexpected end-of-string'],
    ['\\p', 'invalid character class \\p'],
    ['[z-a]', 'invalid range: from (122) cannot be > to (97)'],
    ['<foo>', "'foo' not found"],
    ['<1-x>', 'interval syntax error at position 4'],
  ])('refuses %s with Lucene\'s message "%s"', (pattern, message) => {
    expect(() => compileRegexp(pattern, ALL)).toThrow(new RegexpSyntaxError(message));
  });

  it('agrees with a brute-force matcher on 1,500 random patterns over every string of up to 4 letters', () => {
    const random = seededRandom(2026);
    const strings = allStrings(4);
    for (let n = 0; n < 1500; n++) {
      const tree = randomTree(random, 3);
      const pattern = render(tree);
      const matcher = compileRegexp(pattern, ALL);
      for (const s of strings) {
        if (matcher.matches(s) !== member(tree, s))
          throw new Error(`${pattern} on "${s}": ${!member(tree, s)}`);
      }
    }
  });

  it('stays linear on patterns that make backtracking matchers exponential', () => {
    const term = 'a'.repeat(50_000);
    const started = performance.now();
    expect(matches('(a*)*b', term)).toBe(false);
    expect(matches('(a|aa)*c', term)).toBe(false);
    expect(matches('(a+)+', term)).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('refuses a pattern whose DFA exceeds max_determinized_states', () => {
    expect(() => compileRegexp('(a|b)*a(a|b){20}', ALL)).toThrow(TooComplexToDeterminizeError);
    expect(() => compileRegexp('[ac]*a[ac]{0,3}', { ...ALL, maxDeterminizedStates: 1 })).toThrow(
      /Determinizing automaton with \d+ states and \d+ transitions would require more than 1 effort\./,
    );
    expect(matches('(a|b)*a(a|b){3}', 'bbabab')).toBe(true);
  });

  it('names the literal prefix every match starts with (where the dictionary walk starts)', () => {
    expect(compileRegexp('kim.*', ALL).commonPrefix()).toBe('kim');
    expect(compileRegexp('k(im|am)', ALL).commonPrefix()).toBe('k');
    expect(compileRegexp('.*kim', ALL).commonPrefix()).toBe('');
    expect(compileRegexp('ab|ab', ALL).commonPrefix()).toBe('ab');
  });
});
