import type { BinaryCopy } from '../../src/storage/copy-binary';
import {
  BLOCK_SIZE,
  writeBlock,
  writeBlockRow,
  blockEnd,
  buildBlocks,
  TailAppends,
  tailRoom,
  type PostingRun,
} from '../../src/index/build-blocks';

/** A term's totals after a batch, carried along by every block and tail it writes. */
const TOTALS = { docFreq: 12, totalTermFreq: 30 };

const run = (keys: number[]): PostingRun => ({
  docKeys: keys,
  freqs: keys.map((_, i) => (i % 3) + 1),
  norms: keys.map((_, i) => 40 - i),
  start: 0,
  end: keys.length,
});

/** The one tail of `appends` at `i`: its columns, and its slice of the flat arrays. */
function tail(appends: TailAppends, i: number) {
  const slice = (values: Int32Array) => Array.from(values.slice(appends.from[i]! - 1, appends.to[i]));
  return {
    termId: appends.termIds[i],
    base: appends.bases[i],
    last: appends.lasts[i],
    offsets: slice(appends.offsets),
    freqs: slice(appends.freqs),
    norms: slice(appends.norms),
    maxFreq: appends.maxFreqs[i],
    minNorm: appends.minNorms[i],
    totals: { docFreq: appends.docFreqs[i], totalTermFreq: appends.totalTermFreqs[i] },
  };
}

describe('TailAppends', () => {
  it('appends the first postings as offsets from the tail base, with their freqs, norms and impacts', () => {
    const appends = new TailAppends();
    appends.add(42, 100, run([105, 107, 120, 300]), 3, TOTALS);
    expect(appends.size).toBe(1);
    expect(tail(appends, 0)).toEqual({
      termId: 42,
      base: 100,
      last: 120,
      offsets: [5, 7, 20],
      freqs: [1, 2, 3],
      norms: [40, 39, 38],
      maxFreq: 3,
      minNorm: 38,
      totals: TOTALS,
    });
  });

  it('takes exactly what tailRoom allows, the rest starting new blocks', () => {
    const list = run(Array.from({ length: 10 }, (_, i) => 1000 + i));
    const room = tailRoom(900, BLOCK_SIZE - 4, list);
    expect(room).toBe(4);
    const appends = new TailAppends();
    appends.add(7, 900, list, room, TOTALS);
    expect(tail(appends, 0).offsets).toEqual([100, 101, 102, 103]);
    expect(tail(appends, 0).last).toBe(1003);
    expect(buildBlocks({ ...list, start: room }).map((b) => b.baseDocKey)).toEqual([1004]);
  });

  it('gives the same columns as a block built from the same postings', () => {
    const list = run([8, 9, 15, 16, 40]);
    const [block] = buildBlocks(list);
    const appends = new TailAppends();
    appends.add(1, block!.baseDocKey, list, list.end, TOTALS);
    const ext = tail(appends, 0);
    expect([ext.offsets, ext.freqs, ext.norms]).toEqual([block!.offsets, block!.freqs, block!.norms]);
    expect([ext.maxFreq, ext.minNorm, ext.last]).toEqual([block!.maxFreq, block!.minNorm, block!.lastDocKey]);
  });

  it('keeps each tail its own slice of the flat arrays, reading only its run of the shared arrays', () => {
    const list = { ...run([1, 2, 50, 60, 70]), start: 2, end: 4 };
    expect(tailRoom(40, 3, list)).toBe(2);
    const appends = new TailAppends();
    appends.add(3, 40, list, 2, TOTALS);
    appends.add(4, 0, { ...list, start: 0, end: 5 }, 1, TOTALS);
    expect([appends.from, appends.to]).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(tail(appends, 0).offsets).toEqual([10, 20]);
    expect(tail(appends, 1).offsets).toEqual([1]);
  });
});

describe('buildBlocks', () => {
  it('cuts full blocks of 128 and a last partial one', () => {
    const blocks = buildBlocks(run(Array.from({ length: 300 }, (_, i) => 10 + 2 * i)));
    expect(blocks.map((b) => b.offsets.length)).toEqual([128, 128, 44]);
    expect(blocks.map((b) => b.baseDocKey)).toEqual([10, 266, 522]);
    expect(blocks[1]!.offsets.slice(0, 3)).toEqual([0, 2, 4]);
    expect(blocks[2]!.lastDocKey).toBe(10 + 2 * 299);
  });

  it('starts a new block where an offset would not fit in int4', () => {
    const blocks = buildBlocks(run([1, 2, 2 ** 31 + 1, 2 ** 31 + 5]));
    expect(blocks.map((b) => [b.baseDocKey, b.offsets])).toEqual([
      [1, [0, 1]],
      [2 ** 31 + 1, [0, 4]],
    ]);
  });
});

/** Records what writeBlockRow writes, column by column (arrays as the values the callback gives). */
function recorder(): { copy: BinaryCopy; rows: unknown[][] } {
  const rows: unknown[][] = [];
  const push = (value: unknown) => rows[rows.length - 1]!.push(value);
  const array = (count: number, value: (i: number) => number) =>
    Array.from({ length: count }, (_, i) => value(i));
  const copy = {
    row() {
      rows.push([]);
      return copy;
    },
    int8: (v: number) => (push(v), copy),
    int4: (v: number) => (push(v), copy),
    int2: (v: number) => (push(v), copy),
    int8Array: (n: number, v: (i: number) => number) => (push(array(n, v)), copy),
    int4Array: (n: number, v: (i: number) => number) => (push(array(n, v)), copy),
    int2Array: (n: number, v: (i: number) => number) => (push(array(n, v)), copy),
  };
  return { copy: copy as unknown as BinaryCopy, rows };
}

describe('writeBlockRow', () => {
  it('writes the posting_blocks row of exactly the block buildBlocks cuts', () => {
    const list = { ...run(Array.from({ length: 130 }, (_, i) => 500 + 3 * i)) };
    list.freqs = Array.from({ length: 130 }, (_, i) => 1 + (i % 5));
    list.norms = Array.from({ length: 130 }, (_, i) => 40 + (i % 7));
    const blocks = buildBlocks(list);
    const { copy, rows } = recorder();
    for (let from = list.start; from < list.end;) {
      const end = blockEnd(list, from);
      writeBlockRow(copy, 9, 77, list, from, end, { docFreq: 130, totalTermFreq: 390 });
      from = end;
    }
    expect(rows).toEqual(
      blocks.map((b) => [
        9,
        77,
        b.baseDocKey,
        b.lastDocKey,
        b.offsets,
        b.freqs,
        b.norms,
        b.maxFreq,
        b.minNorm,
        130,
        390,
      ]),
    );
    expect(rows.map((r) => r[7])).toEqual([5, 5]);
    expect(rows.map((r) => r[8])).toEqual([40, 42]);
    // A block built beforehand (the merge path) is written as the same row.
    const built = recorder();
    for (const b of blocks) writeBlock(built.copy, 9, 77, b, { docFreq: 130, totalTermFreq: 390 });
    expect(built.rows).toEqual(rows);
  });
});
