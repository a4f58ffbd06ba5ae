import {
  BLOCK_SIZE,
  blockColumns,
  blockEnd,
  buildBlocks,
  tailExtension,
  tailRoom,
  type PostingRun,
} from '../../src/index/build-blocks';

const run = (keys: number[]): PostingRun => ({
  docKeys: keys,
  freqs: keys.map((_, i) => (i % 3) + 1),
  norms: keys.map((_, i) => 40 - i),
  start: 0,
  end: keys.length,
});

describe('tailExtension', () => {
  it('appends the first postings as offsets from the tail base, with their freqs, norms and impacts', () => {
    expect(tailExtension('42', 100, run([105, 107, 120, 300]), 3)).toEqual({
      termId: '42',
      base: 100,
      last: 120,
      offsets: '{5,7,20}',
      freqs: '{1,2,3}',
      norms: '{40,39,38}',
      maxFreq: 3,
      minNorm: 38,
    });
  });

  it('takes exactly what tailRoom allows, the rest starting new blocks', () => {
    const list = run(Array.from({ length: 10 }, (_, i) => 1000 + i));
    const room = tailRoom(900, BLOCK_SIZE - 4, list);
    expect(room).toBe(4);
    const ext = tailExtension('7', 900, list, room);
    expect(ext.offsets).toBe('{100,101,102,103}');
    expect(ext.last).toBe(1003);
    expect(buildBlocks({ ...list, start: room }).map((b) => b.baseDocKey)).toEqual([1004]);
  });

  it('gives the same columns as a block built from the same postings', () => {
    const list = run([8, 9, 15, 16, 40]);
    const [block] = buildBlocks(list);
    const ext = tailExtension('1', block!.baseDocKey, list, list.end);
    expect(ext.offsets).toBe(`{${block!.offsets.join(',')}}`);
    expect(ext.freqs).toBe(`{${block!.freqs.join(',')}}`);
    expect(ext.norms).toBe(`{${block!.norms.join(',')}}`);
    expect([ext.maxFreq, ext.minNorm, ext.last]).toEqual([block!.maxFreq, block!.minNorm, block!.lastDocKey]);
  });

  it('reads only its run of the shared arrays', () => {
    const list = { ...run([1, 2, 50, 60, 70]), start: 2, end: 4 };
    expect(tailRoom(40, 3, list)).toBe(2);
    expect(tailExtension('3', 40, list, 2).offsets).toBe('{10,20}');
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

describe('blockColumns', () => {
  it('writes the COPY columns of exactly the block buildBlocks cuts', () => {
    const list = run(Array.from({ length: 130 }, (_, i) => 500 + 3 * i));
    const blocks = buildBlocks(list);
    const lines: string[] = [];
    for (let from = list.start; from < list.end;) {
      const end = blockEnd(list, from);
      lines.push(blockColumns(list, from, end));
      from = end;
    }
    expect(lines).toEqual(
      blocks.map(
        (b) =>
          `${b.baseDocKey}\t${b.lastDocKey}\t{${b.offsets.join(',')}}\t{${b.freqs.join(',')}}\t{${b.norms.join(',')}}\t${b.maxFreq}\t${b.minNorm}`,
      ),
    );
  });
});
