import fc from 'fast-check';
import { analyzeBatch, type AnalyzedBatch } from '../../src/index/batch-analyzer';
import type { IndexMapping } from '../../src/mapping/mapping-types';

/**
 * The fused ASCII path of the standard analyzer (word boundaries, max_token_length pieces, lowercase
 * and the term lookup in one pass) against the general path (Token objects through `analyzeValues`):
 * the same batch, array for array, on text made from the fragments where the boundaries are subtle.
 */
const RUNS = 300;

const mappings: IndexMapping = {
  properties: {
    body: { type: 'text' },
    title: { type: 'text', fields: { raw: { type: 'keyword' } } },
    custom: { type: 'text', analyzer: 'std_lower' },
    simple: { type: 'text', analyzer: 'simple' },
    tags: { type: 'keyword' },
  },
};
const settings = {
  analysis: { analyzer: { std_lower: { type: 'custom', tokenizer: 'standard', filter: ['lowercase'] } } },
};

const FRAGMENTS = [
  'The',
  'Zebra',
  'ABCXYZ',
  '@[`{',
  'a@Z',
  'fox',
  'DOG',
  'a',
  'I',
  'x1',
  '42',
  '3.14',
  '1,000',
  '1;2',
  "don't",
  "rock'n'roll",
  'a.b',
  'U.S.A.',
  'e:mail',
  '_',
  '__init__',
  'snake_case',
  'a_1',
  '9_9',
  '.',
  ',',
  ';',
  ':',
  "'",
  '-',
  '--',
  '!?',
  '(',
  ')',
  'x'.repeat(255),
  'Y'.repeat(256),
  'z9'.repeat(300),
  ' ',
  '  ',
  '\t',
  '\n',
  'ab\u00e9c',
  '\u5317\u4eac',
  '\ud83d\ude00',
];

const text = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 24 }).map((parts) => parts.join(''));
const value = fc.oneof(
  { weight: 6, arbitrary: text },
  { weight: 1, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
  { weight: 1, arbitrary: fc.boolean() },
);
const field = fc.oneof(value, fc.array(value, { maxLength: 4 }));
const document = fc.record(
  { body: field, title: field, custom: field, simple: field, tags: field },
  { requiredKeys: [] },
);

/** The batch as plain arrays, comparable with toEqual. */
function plain(batch: AnalyzedBatch): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(batch).map(([key, v]) => [key, ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v]),
  );
}

describe('BatchAnalyzer fused ASCII path', () => {
  it('analyses every batch exactly as the general path does', () => {
    fc.assert(
      fc.property(fc.array(document, { minLength: 1, maxLength: 8 }), (documents) => {
        const fused = analyzeBatch(mappings, settings, documents);
        const general = analyzeBatch(mappings, settings, documents, { fusedAscii: false });
        expect(plain(fused)).toEqual(plain(general));
      }),
      { numRuns: RUNS },
    );
  });

  it('splits a token over 255 characters into pieces at consecutive positions, lowercased', () => {
    const batch = analyzeBatch(mappings, settings, [{ body: `Go ${'AB'.repeat(200)} now` }]);
    const stream = Array.from(batch.streamTokens, (t) => batch.termText[t - 1]);
    expect(stream).toEqual(['go', 'ab'.repeat(127) + 'a', 'b' + 'ab'.repeat(72), 'now']);
  });
});
