import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8 } from '../support/http';
import { seededRandom } from '../support/seeded-random';
import { sharedGraphCaches } from '../../src/index/vector-writer';

/**
 * Graph compaction through `POST /<index>/_forcemerge` on real Postgres: deleting documents leaves
 * tombstones in the HNSW graph (ways through it, never results); a force merge removes them, their
 * nodes and vectors, relinks the live nodes, and the kNN recall holds, from the in-process graph and
 * from the tables alike.
 */
describe('HNSW graph compaction on force merge', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const DIMS = 16;
  const random = seededRandom(2204);
  const vectors = Array.from({ length: 400 }, () => Array.from({ length: DIMS }, () => random() * 2 - 1));
  const queries = Array.from({ length: 20 }, () => Array.from({ length: DIMS }, () => random() * 2 - 1));
  const l2 = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + (x - b[i]!) ** 2, 0);

  const count = async (sql: string) => (await server.pool.query<{ n: number }>(sql)).rows[0]!.n;

  /** recall@10 of knn against the exact neighbours among the live (odd) documents. */
  const recall = async () => {
    let found = 0;
    for (const q of queries) {
      const truth = new Set(
        vectors
          .map((v, i) => ({ id: String(i), d: l2(q, v) }))
          .filter((x) => Number(x.id) % 2 === 1)
          .sort((a, b) => a.d - b.d)
          .slice(0, 10)
          .map((x) => x.id),
      );
      const result = await es().search({
        index: 'compact',
        size: 10,
        knn: { field: 'v', query_vector: q, k: 10, num_candidates: 40 },
      });
      expect(result.hits.hits).toHaveLength(10);
      for (const hit of result.hits.hits) if (truth.has(hit._id!)) found += 1;
    }
    return found / (queries.length * 10);
  };

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index: 'compact',
      mappings: {
        properties: {
          v: {
            type: 'dense_vector',
            dims: DIMS,
            similarity: 'l2_norm',
            index_options: { type: 'hnsw', m: 8 },
          },
        },
      },
    });
    const operations = vectors.flatMap((v, i) => [{ index: { _index: 'compact', _id: String(i) } }, { v }]);
    expect((await es().bulk({ operations, refresh: true })).errors).toBe(false);
    const deletes = vectors.flatMap((_, i) =>
      i % 2 === 0 ? [{ delete: { _index: 'compact', _id: String(i) } }] : [],
    );
    expect((await es().bulk({ operations: deletes, refresh: true })).errors).toBe(false);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('removes the tombstones of deleted documents and keeps recall', async () => {
    expect(await count(`SELECT count(*)::int AS n FROM hnsw_nodes WHERE deleted`)).toBe(200);
    const merged = await call(server.url, 'POST', '/compact/_forcemerge');
    expect(merged.status).toBe(200);
    expect(merged.json).toEqual({ _shards: { total: 2, successful: 1, failed: 0 } });
    expect(await count(`SELECT count(*)::int AS n FROM hnsw_nodes WHERE deleted`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM hnsw_nodes`)).toBe(200);
    expect(await count(`SELECT count(*)::int AS n FROM dense_vectors`)).toBe(200);
    expect(await recall()).toBeGreaterThanOrEqual(0.9);
  });

  it('serves the compacted graph from the tables (another instance, a restart)', async () => {
    const { rows } = await server.pool.query<{ index_id: string }>(
      `SELECT index_id FROM indices WHERE name = 'compact'`,
    );
    sharedGraphCaches.drop(rows[0]!.index_id);
    expect(await recall()).toBeGreaterThanOrEqual(0.9);
  });

  it('takes writes after compaction and merges an index without tombstones as a no-op', async () => {
    await es().index({ index: 'compact', id: 'new', document: { v: queries[0] }, refresh: true });
    const result = await es().search({
      index: 'compact',
      knn: { field: 'v', query_vector: queries[0]!, k: 1, num_candidates: 10 },
    });
    expect(result.hits.hits.map((h) => h._id)).toEqual(['new']);
    const merged = await call(server.url, 'POST', '/compact/_forcemerge');
    expect(merged.status).toBe(200);
    expect(await count(`SELECT count(*)::int AS n FROM hnsw_nodes`)).toBe(201);
  });
});
