import { createIndexFixture, type IndexFixture } from './support/index-fixture';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

describe('concurrent batches', () => {
  it('write overlapping terms from parallel transactions without deadlocks and with exact statistics', async () => {
    const index = await fx.createIndex({ properties: { t: { type: 'text' }, k: { type: 'keyword' } } });
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    // Each batch uses the same terms in a different order, so unsorted upserts would lock in opposite orders.
    const batches = Array.from({ length: 6 }, (_, b) => {
      const docs: Record<string, Record<string, unknown>> = {};
      for (let i = 0; i < 40; i++) {
        const order = b % 2 === 0 ? words : [...words].reverse();
        docs[`b${b}-${i}`] = { t: order.join(' '), k: order[i % order.length] };
      }
      return docs;
    });
    await Promise.all(batches.map((docs) => fx.putDocs(index, docs)));
    const { rows } = await fx.pool.query<{ term: string; doc_freq: number }>(
      `SELECT t.term, t.doc_freq FROM terms t JOIN fields f USING (index_id, field_id) WHERE t.index_id = $1 AND f.path = 't' ORDER BY t.term`,
      [index.indexId],
    );
    expect(rows).toEqual([...words].sort().map((term) => ({ term, doc_freq: 240 })));
    const stats = await fx.pool.query(
      `SELECT f.path, s.doc_count::int, s.sum_total_term_freq::int FROM field_stats s JOIN fields f USING (index_id, field_id)
       WHERE s.index_id = $1 ORDER BY f.path`,
      [index.indexId],
    );
    expect(stats.rows).toEqual([
      { path: 'k', doc_count: 240, sum_total_term_freq: 240 },
      { path: 't', doc_count: 240, sum_total_term_freq: 1440 },
    ]);
  });
});
