import { analyze, BUILT_IN_ANALYZERS, findAnalyzer } from '../../src/analysis/analyzer';
import fc from 'fast-check';
import { segmenterStandardTokenizer, standardTokenizer } from '../../src/analysis/standard-tokenizer';

type Row = [term: string, position: number, start: number, end: number];
const rows = (text: string, analyzer = 'standard'): Row[] =>
  analyze(findAnalyzer(analyzer), text).map((t) => [t.term, t.position, t.startOffset, t.endOffset]);

describe('standard analyzer', () => {
  it.each<[string, Row[]]>([
    [
      "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.",
      [
        ['the', 0, 0, 3],
        ['2', 1, 4, 5],
        ['quick', 2, 6, 11],
        ['brown', 3, 12, 17],
        ['foxes', 4, 18, 23],
        ['jumped', 5, 24, 30],
        ['over', 6, 31, 35],
        ['the', 7, 36, 39],
        ['lazy', 8, 40, 44],
        ["dog's", 9, 45, 50],
        ['bone', 10, 51, 55],
      ],
    ],
    [
      'pi is 3.14, not 1,000',
      [
        ['pi', 0, 0, 2],
        ['is', 1, 3, 5],
        ['3.14', 2, 6, 10],
        ['not', 3, 12, 15],
        ['1,000', 4, 16, 21],
      ],
    ],
    [
      '我爱北京',
      [
        ['我', 0, 0, 1],
        ['爱', 1, 1, 2],
        ['北', 2, 2, 3],
        ['京', 3, 3, 4],
      ],
    ],
    [
      'ひらカタカナ',
      [
        ['ひ', 0, 0, 1],
        ['ら', 1, 1, 2],
        ['カタカナ', 2, 2, 6],
      ],
    ],
    [
      'Ünïcode ÉTÉ',
      [
        ['ünïcode', 0, 0, 7],
        ['été', 1, 8, 11],
      ],
    ],
    [
      'a😀b',
      [
        ['a', 0, 0, 1],
        ['😀', 1, 1, 3],
        ['b', 2, 3, 4],
      ],
    ],
    [
      'foo@bar.com under_score',
      [
        ['foo', 0, 0, 3],
        ['bar.com', 1, 4, 11],
        ['under_score', 2, 12, 23],
      ],
    ],
    ['...!!! ---', []],
  ])('tokenizes %j', (text, expected) => {
    expect(rows(text)).toEqual(expected);
  });

  it('splits a token longer than 255 characters at 255', () => {
    const tokens = standardTokenizer('a'.repeat(600));
    expect(tokens.map((t) => [t.term.length, t.position, t.startOffset, t.endOffset])).toEqual([
      [255, 0, 0, 255],
      [255, 1, 255, 510],
      [90, 2, 510, 600],
    ]);
  });

  it('labels token types as Lucene does', () => {
    expect(standardTokenizer('abc 42 3.5 北 ひ カタ 한국 😀').map((t) => t.type)).toEqual([
      '<ALPHANUM>',
      '<NUM>',
      '<NUM>',
      '<IDEOGRAPHIC>',
      '<HIRAGANA>',
      '<KATAKANA>',
      '<HANGUL>',
      '<EMOJI>',
    ]);
  });
});

describe('other analyzers', () => {
  it.each<[string, string, Row[]]>([
    [
      'whitespace',
      'Hello  WORLD-x',
      [
        ['Hello', 0, 0, 5],
        ['WORLD-x', 1, 7, 14],
      ],
    ],
    ['keyword', 'Hello World', [['Hello World', 0, 0, 11]]],
    [
      'simple',
      "Don't 42stop",
      [
        ['don', 0, 0, 3],
        ['t', 1, 4, 5],
        ['stop', 2, 8, 12],
      ],
    ],
    [
      'stop',
      'The quick and the dead',
      [
        ['quick', 1, 4, 9],
        ['dead', 4, 18, 22],
      ],
    ],
  ])('%s analyzes %j', (name, text, expected) => {
    expect(rows(text, name)).toEqual(expected);
  });

  it('builds a custom analyzer from index settings with asciifolding and stop filters', () => {
    const settings = {
      'index.analysis.analyzer.folded.tokenizer': 'standard',
      'index.analysis.analyzer.folded.filter': ['lowercase', 'asciifolding', 'my_stop'],
      'index.analysis.filter.my_stop.type': 'stop',
      'index.analysis.filter.my_stop.stopwords': ['cafe'],
    };
    const tokens = analyze(findAnalyzer('folded', settings), 'Crème Brûlée au Café');
    expect(tokens.map((t) => [t.term, t.position])).toEqual([
      ['creme', 0],
      ['brulee', 1],
      ['au', 2],
    ]);
  });

  it('reads nested settings and numbered filter keys', () => {
    const settings = {
      analysis: { analyzer: { a: { tokenizer: 'whitespace', filter: { 0: 'uppercase' } } } },
    };
    expect(analyze(findAnalyzer('a', settings), 'x y').map((t) => t.term)).toEqual(['X', 'Y']);
  });

  it('rejects an unknown analyzer with illegal_argument_exception', () => {
    expect(() => findAnalyzer('nope')).toThrow('failed to find analyzer [nope]');
  });

  it('keeps the standard analyzer free of stop words', () => {
    expect(analyze(BUILT_IN_ANALYZERS.standard!, 'to be').map((t) => t.term)).toEqual(['to', 'be']);
  });
});

describe('ASCII fast path', () => {
  it('tokenizes exactly as the Unicode segmenter path on random ASCII text', () => {
    const alphabet = [..."aZk09_.,;:'- \n!@$/"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }), (chars) => {
        const text = chars.join('');
        expect(standardTokenizer(text)).toEqual(segmenterStandardTokenizer(text));
      }),
      { numRuns: 3000 },
    );
  });
});
