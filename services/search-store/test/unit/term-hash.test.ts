import { TermHash } from '../../src/index/term-hash';

describe('TermHash', () => {
  it('numbers terms densely in first-seen order, per field, through any number of growths', () => {
    const hash = new TermHash();
    const words = Array.from({ length: 50_000 }, (_, i) => `w${i.toString(36)}`);
    const first = words.map((w, i) => hash.intern(i % 3, w));
    const again = words.map((w, i) => hash.intern(i % 3, w));
    expect(first).toEqual(words.map((_, i) => i));
    expect(again).toEqual(first);
    // The same text in another field is another term.
    expect(hash.intern(7, words[0]!)).toBe(words.length);
    expect(hash.size).toBe(words.length + 1);
    expect(hash.texts.slice(0, 3)).toEqual(['w0', 'w1', 'w2']);
    expect(Array.from(hash.fields().subarray(0, 4))).toEqual([0, 1, 2, 0]);
    expect(hash.fields()[words.length]).toBe(7);
  });

  it('interns a slice of a text where it is as the term its string is', () => {
    const hash = new TermHash();
    const text = 'the quick brown fox, the quick brown fox';
    const quick = hash.internSlice(0, text, 4, 9);
    expect(hash.texts[quick]).toBe('quick');
    expect(hash.intern(0, 'quick')).toBe(quick);
    expect(hash.internSlice(0, text, 25, 30)).toBe(quick);
    const the = hash.intern(0, 'the');
    expect(hash.internSlice(0, text, 0, 3)).toBe(the);
    expect(hash.internSlice(0, text, 21, 24)).toBe(the);
    // Prefixes, other fields and other cases are other terms.
    expect(hash.internSlice(0, text, 4, 8)).not.toBe(quick);
    expect(hash.internSlice(1, text, 4, 9)).not.toBe(quick);
    expect(hash.internSlice(0, 'QUICK', 0, 5)).not.toBe(quick);
    // A slice that is the whole text is that text's term.
    expect(hash.internSlice(0, 'fox', 0, 3)).toBe(hash.internSlice(0, text, 16, 19));
    expect(hash.texts).toEqual(['quick', 'the', 'quic', 'quick', 'QUICK', 'fox']);
  });

  it('keeps long slices as the strings they are, however long', () => {
    const hash = new TermHash();
    const text = 'the internationalization of things';
    const long = hash.internSlice(0, text, 4, 24);
    expect(hash.texts[long]).toBe('internationalization');
    expect(hash.intern(0, 'internationalization')).toBe(long);
    // Built from the pool in pieces of 4,096 code units, non-ASCII ones included.
    const huge = 'ab\u00e9\u4e2d'.repeat(5_000);
    const slice = hash.internSlice(0, `x${huge}y`, 1, huge.length + 1);
    expect(hash.texts[slice]).toBe(huge);
    expect(hash.intern(0, huge)).toBe(slice);
  });

  it('keeps terms of any length and the empty term', () => {
    const hash = new TermHash();
    const long = 'x'.repeat(100_000);
    expect(hash.intern(0, long)).toBe(0);
    expect(hash.intern(0, '')).toBe(1);
    expect(hash.intern(0, long)).toBe(0);
    expect(hash.intern(0, `${long}y`)).toBe(2);
    expect(hash.intern(0, '')).toBe(1);
  });
});
