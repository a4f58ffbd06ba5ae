import type { BinaryCopy } from '../../src/storage/copy-binary';
import {
  BLOCK_SIZE,
  writeBlock,
  writeBlockRow,
  blockEnd,
  buildBlocks,
  MERGE_AT,
  packedAt,
  packedWidth,
  smallRunAfter,
  unpackBlock,
  type PostingRun,
} from '../../src/index/build-blocks';
import { peakPairs } from '../../src/index/block-peak-pairs';

const run = (keys: number[]): PostingRun => ({
  docKeys: keys,
  freqs: keys.map((_, i) => (i % 3) + 1),
  norms: keys.map((_, i) => 40 - i),
  start: 0,
  end: keys.length,
});

describe('smallRunAfter', () => {
  it('counts blocks of fewer than 128 documents in a row and starts over at a full one', () => {
    let runLength = 0;
    const seen = [3, 1, BLOCK_SIZE, 5, 127, 2].map((size) => (runLength = smallRunAfter(runLength, size)));
    expect(seen).toEqual([1, 2, 0, 1, 2, 3]);
    expect(MERGE_AT).toBeGreaterThan(1);
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
    packed: (n: number, width: number, v: (i: number) => number) => (
      push({ width, values: array(n, v) }),
      copy
    ),
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
      writeBlockRow(
        copy,
        9,
        77,
        list,
        from,
        end,
        { docFreq: 130, totalTermFreq: 390 },
        end - from < 128 ? 4 : 0,
      );
      from = end;
    }
    // Packed (migration 0030): the first block spans 381 keys (2 bytes an offset), the second 3 (1 byte);
    // freqs up to 5 and norms take 1 byte.
    const offsetWidths = [2, 1];
    expect(rows).toEqual(
      blocks.map((b, i) => [
        9,
        77,
        b.baseDocKey,
        b.lastDocKey,
        { width: offsetWidths[i], values: b.offsets },
        { width: 1, values: b.freqs },
        { width: 1, values: b.norms },
        b.maxFreq,
        b.minNorm,
        130,
        390,
        b.offsets.length < 128 ? 4 : 0,
        { width: 1, values: Array.from(peakPairs(b.freqs, b.norms, 0, b.freqs.length)) },
      ]),
    );
    expect(rows.map((r) => r[7])).toEqual([5, 5]);
    expect(rows.map((r) => r[8])).toEqual([40, 42]);
    // Peaks (migration 0032): the first block has a posting of freq 5 and norm 40 (empty: that pair);
    // the second's two postings are (4, 42) and (5, 43), neither dominating the other.
    expect(rows[0]![12]).toEqual({ width: 1, values: [] });
    expect(rows[1]![12]).toEqual({ width: 1, values: [0, 0, 0, 4, 42, 0, 0, 0, 5, 43] });
    // A block built beforehand (the merge path) is written as the same row.
    const built = recorder();
    for (const b of blocks)
      writeBlock(built.copy, 9, 77, b, { docFreq: 130, totalTermFreq: 390 }, b.offsets.length < 128 ? 4 : 0);
    expect(built.rows).toEqual(rows);
  });
});

describe('packed columns (migration 0030)', () => {
  it('takes the fewest bytes that hold the largest value, as SQL posting_bytes does', () => {
    const widths = [0, 255, 256, 65535, 65536, 16777215, 16777216, 2147483647].map(packedWidth);
    expect(widths).toEqual([1, 1, 2, 2, 3, 3, 4, 4]);
  });

  it('reads values back big-endian at each width', () => {
    const bytes = Uint8Array.from([0x00, 0x00, 0x01, 0x7f, 0xff, 0xff]);
    expect([0, 1].map((i) => packedAt(bytes, 3, i))).toEqual([1, 0x7fffff]);
    expect([0, 1, 2].map((i) => packedAt(bytes, 2, i))).toEqual([0, 0x17f, 0xffff]);
    expect(packedAt(bytes, 1, 4)).toBe(255);
    expect(packedAt(Uint8Array.from([0x7f, 0xff, 0xff, 0xff]), 4, 0)).toBe(2147483647);
  });

  it('unpacks a block, each column at its own width, and refuses columns of another size', () => {
    const offsets = Uint8Array.from([0x00, 0x00, 0x01, 0x00, 0x01, 0x02]);
    const freqs = Uint8Array.from([1, 2, 3]);
    const norms = Uint8Array.from([40, 0, 255]);
    expect(unpackBlock(offsets, freqs, norms)).toEqual({
      offsets: [0, 256, 258],
      freqs: [1, 2, 3],
      norms: [40, 0, 255],
    });
    expect(() => unpackBlock(offsets.subarray(1), freqs, norms)).toThrow(/disagree/);
    expect(() => unpackBlock(offsets, freqs, norms.subarray(0, 0))).toThrow(/disagree/);
  });
});
