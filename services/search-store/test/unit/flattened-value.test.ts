import { flattenedDepth, flattenedEntries, flattenedLeaves } from '../../src/mapping/flattened-value';

describe('flattened values', () => {
  it('lists leaves under their dotted keys, arrays flattened, nulls skipped, numbers as text', () => {
    expect(flattenedLeaves({ a: 'x', b: { c: [1, true, null] }, d: [{ e: 'y' }] })).toEqual([
      ['a', 'x'],
      ['b.c', '1'],
      ['b.c', 'true'],
      ['d.e', 'y'],
    ]);
    expect(flattenedLeaves({ a: 'abcdef', b: 'abc' }, 3)).toEqual([['b', 'abc']]);
  });

  it('stores each leaf under the root and under its key, once', () => {
    expect(flattenedEntries([{ a: 'x', b: 'x' }])).toEqual(['\u0001x', 'a\u0001x', 'b\u0001x']);
  });

  it('measures depth in objects, the root counting one', () => {
    expect(flattenedDepth({ a: 1 })).toBe(1);
    expect(flattenedDepth({ a: { b: [{ c: 1 }] } })).toBe(3);
    expect(flattenedDepth('x')).toBe(0);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(flattenedDepth(deep)).toBe(100_000);
  });
});
