import { lowercaseFilter } from '../../src/analysis/token-filters';
import type { Token } from '../../src/analysis/token';

const token = (term: string, position: number): Token => ({
  term,
  position,
  startOffset: position * 10,
  endOffset: position * 10 + term.length,
  type: '<ALPHANUM>',
});

describe('lowercaseFilter', () => {
  it('lowercases every term (Unicode) and keeps positions, offsets and types', () => {
    const input = [token('The', 0), token('quick', 1), token('ÉCOLE', 2), token('İstanbul', 3)];
    const output = lowercaseFilter(input);
    expect(output.map((t) => t.term)).toEqual(['the', 'quick', 'école', 'i\u0307stanbul']);
    expect(output.map(({ term: _, ...rest }) => rest)).toEqual(input.map(({ term: _, ...rest }) => rest));
  });

  it('never changes the tokens it was given', () => {
    const input = [token('Mixed', 0), token('lower', 1)];
    const copy = structuredClone(input);
    lowercaseFilter(input);
    expect(input).toEqual(copy);
  });
});
