import { TopDocsHeap } from '../../../src/search/fast-match/top-docs-heap';

describe('TopDocsHeap keeps the best documents in relevance order', () => {
  it('orders by score descending, then shard, then doc ascending', () => {
    const heap = new TopDocsHeap(10);
    heap.offer(1, 0, 5);
    heap.offer(2, 1, 9);
    heap.offer(2, 0, 7);
    heap.offer(2, 0, 3);
    heap.offer(0.5, 0, 1);
    expect(heap.sorted()).toEqual([
      { score: 2, shard: 0, doc: 3 },
      { score: 2, shard: 0, doc: 7 },
      { score: 2, shard: 1, doc: 9 },
      { score: 1, shard: 0, doc: 5 },
      { score: 0.5, shard: 0, doc: 1 },
    ]);
  });

  it('keeps exactly what a full sort would keep, ties included', () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const docs = Array.from({ length: 2000 }, (_, doc) => ({
      score: Math.fround(Math.floor(next() * 50) / 7),
      shard: Math.floor(next() * 3),
      doc,
    }));
    const heap = new TopDocsHeap(25);
    for (const d of docs) heap.offer(d.score, d.shard, d.doc);
    const expected = [...docs]
      .sort((a, b) => b.score - a.score || a.shard - b.shard || a.doc - b.doc)
      .slice(0, 25);
    expect(heap.length).toBe(25);
    expect(heap.sorted()).toEqual(expected);
  });

  it('keeps nothing with capacity 0', () => {
    const heap = new TopDocsHeap(0);
    heap.offer(3, 0, 1);
    expect(heap.sorted()).toEqual([]);
  });
});
