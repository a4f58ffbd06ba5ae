import fc from 'fast-check';
import { termIdOrder } from '../../src/index/save-analyzed-batch';

/** The order by a comparator sort: what termIdOrder must give. */
function expected(hits: number[], missing: number[], termIds: Float64Array): number[] {
  return [...hits, ...missing].sort((a, b) => termIds[a]! - termIds[b]!);
}

describe('termIdOrder', () => {
  it('orders every batch term, cached or not, by its term id', () => {
    const termIds = Float64Array.from([40, 7, 12, 3, 99, 8]);
    expect(Array.from(termIdOrder([0, 2, 5], [4, 1, 3], termIds))).toEqual([3, 1, 5, 2, 0, 4]);
    expect(Array.from(termIdOrder([], [0], Float64Array.from([5])))).toEqual([0]);
    expect(Array.from(termIdOrder([], [], new Float64Array(0)))).toEqual([]);
  });

  it('is the comparator sort for any distinct term ids, unsorted hits included', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 40 }), { minLength: 1, maxLength: 300 }),
        fc.array(fc.boolean(), { minLength: 300, maxLength: 300 }),
        (ids, cached) => {
          const termIds = Float64Array.from(ids);
          const hits: number[] = [];
          const missing: number[] = [];
          for (let t = 0; t < ids.length; t++) (cached[t] ? hits : missing).push(t);
          expect(Array.from(termIdOrder(hits, missing, termIds))).toEqual(expected(hits, missing, termIds));
        },
      ),
    );
  });

  it('falls back to the comparator where a packed key would pass 2^53', () => {
    // Term ids near 2^52 leave no room for the batch term in the low bits.
    const termIds = Float64Array.from([2 ** 52 + 3, 2 ** 52 + 1, 2 ** 52 + 2, 5]);
    expect(Array.from(termIdOrder([2, 0], [3, 1], termIds))).toEqual([3, 1, 2, 0]);
  });
});
