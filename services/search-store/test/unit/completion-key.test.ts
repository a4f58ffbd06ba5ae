import { COMPLETION_SEPARATOR, completionKey, truncateInput } from '../../src/index/completion-key';

/** The completion key as Lucene's ConcatenateGraphFilter builds it, as a table. */
describe('completionKey', () => {
  const settings = {
    index: { analysis: { analyzer: { stops: { type: 'stop', stopwords: ['the'] } } } },
  };
  it.each([
    [
      'simple lower-cases and splits on non-letters',
      {},
      'Never Again!',
      'simple',
      `never${COMPLETION_SEPARATOR}again`,
    ],
    [
      'without separators the tokens run together',
      { preserve_separators: false },
      'Never Again',
      'simple',
      'neveragain',
    ],
    [
      'a removed stop word leaves one more separator',
      {},
      'Beat the Band',
      'stops',
      `beat${COMPLETION_SEPARATOR.repeat(2)}band`,
    ],
    [
      'without position increments the hole is closed',
      { preserve_position_increments: false },
      'Beat the Band',
      'stops',
      `beat${COMPLETION_SEPARATOR}band`,
    ],
    [
      'a leading stop word leaves a leading separator',
      {},
      'The Band',
      'stops',
      `${COMPLETION_SEPARATOR}band`,
    ],
    ['nothing to index', {}, '!!!', 'simple', ''],
  ])('%s', (_name, mapping, text, analyzer, expected) => {
    expect(completionKey(mapping, settings, text, analyzer)).toBe(expected);
  });

  it('truncates inputs by code points', () => {
    expect(truncateInput('a😀bc', 2)).toBe('a😀');
    expect(truncateInput('abc', 50)).toBe('abc');
  });
});
