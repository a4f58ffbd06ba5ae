import { analyzeBatch, type AnalyzedBatch } from '../../src/index/batch-analyzer';
import type { IndexMapping } from '../../src/mapping/mapping-types';
import { intToByte4 } from '../../src/index/small-float';

const mappings: IndexMapping = {
  properties: {
    title: { type: 'text', fields: { raw: { type: 'keyword' } } },
    tags: { type: 'keyword' },
    views: { type: 'integer' },
  },
};

/** term text → [doc, freq, norm] postings, for one field path. */
function postingsOf(batch: AnalyzedBatch, path: string): Record<string, number[][]> {
  const field = batch.fields.findIndex((f) => f.path === path);
  const out: Record<string, number[][]> = {};
  batch.termText.forEach((text, t) => {
    if (batch.termField[t] !== field) return;
    const list: number[][] = [];
    for (let p = batch.postingStart[t]!; p < batch.postingStart[t + 1]!; p++)
      list.push([batch.postingDoc[p]!, batch.postingFreq[p]!, batch.postingNorm[p]!]);
    out[text] = list;
  });
  return out;
}

/** Each token stream as doc, path and its terms (null for a gap). */
function streamsOf(batch: AnalyzedBatch): [number, string, (string | null)[]][] {
  return Array.from(batch.streamDoc, (doc, s) => [
    doc,
    batch.fields[batch.streamField[s]!]!.path,
    Array.from(batch.streamTokens.subarray(batch.streamStart[s], batch.streamStart[s + 1]), (v) =>
      v === 0 ? null : batch.termText[v - 1]!,
    ),
  ]);
}

describe('analyzeBatch', () => {
  const batch = analyzeBatch(mappings, {}, [
    { title: 'the fox and the dog', tags: ['b', 'a', 'b'], views: 3 },
    { title: ['fox', 'cat'], views: [1, '2'] },
    {},
  ]);

  it('groups postings by term in document order with freq and the norm of the field length', () => {
    expect(postingsOf(batch, 'title')).toEqual({
      the: [[0, 2, intToByte4(5)]],
      fox: [
        [0, 1, intToByte4(5)],
        [1, 1, intToByte4(2)],
      ],
      and: [[0, 1, intToByte4(5)]],
      dog: [[0, 1, intToByte4(5)]],
      cat: [[1, 1, intToByte4(2)]],
    });
    expect(postingsOf(batch, 'tags')).toEqual({ b: [[0, 1, 1]], a: [[0, 1, 1]] });
  });

  it('counts document and total term frequencies per term', () => {
    const stats = Object.fromEntries(
      batch.termText.map((text, t) => [
        `${batch.fields[batch.termField[t]!]!.path}:${text}`,
        [batch.docFreq[t], batch.totalTermFreq[t]],
      ]),
    );
    expect(stats).toMatchObject({ 'title:the': [1, 2], 'title:fox': [2, 2], 'tags:b': [1, 1] });
  });

  it('keeps token streams with the gap of 100 positions between the values of an array', () => {
    const streams = streamsOf(batch);
    expect(streams.slice(0, 4)).toEqual([
      [0, 'tags', ['b', 'a']],
      [0, 'title', ['the', 'fox', 'and', 'the', 'dog']],
      [0, 'title.raw', ['the fox and the dog']],
      [1, 'title', ['fox', ...Array<null>(100).fill(null), 'cat']],
    ]);
    expect(streams[4]).toEqual([1, 'title.raw', ['fox', 'cat']]);
    // Each stream carries its field's length: tokens for text (not positions), distinct terms for keyword.
    expect(Array.from(batch.streamLength)).toEqual([2, 5, 1, 2, 2]);
  });

  it('adds up field statistics, lengths and doc values (keywords sorted)', () => {
    const stat = (path: string) => {
      const f = batch.fields.findIndex((x) => x.path === path);
      return [batch.statDocCount[f], batch.statSumTotalTermFreq[f]];
    };
    expect([stat('title'), stat('tags'), stat('views')]).toEqual([
      [2, 7],
      [1, 2],
      [2, 3],
    ]);
    const values = Array.from(batch.valueDoc, (doc, i) => [
      doc,
      batch.fields[batch.valueField[i]!]!.path,
      batch.valueNum[i] ?? batch.valueKw[i],
    ]);
    expect(values).toEqual([
      [0, 'tags', 'a'],
      [0, 'tags', 'b'],
      [0, 'title.raw', 'the fox and the dog'],
      [0, 'views', 3],
      [1, 'title.raw', 'cat'],
      [1, 'title.raw', 'fox'],
      [1, 'views', 1],
      [1, 'views', 2],
    ]);
  });

  it('writes nothing for a document without indexed values', () => {
    expect(batch.docCount).toBe(3);
    expect(Array.from(batch.streamDoc)).not.toContain(2);
    expect(Array.from(batch.valueDoc)).not.toContain(2);
  });
});
