import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';
import { seededRandom } from '../support/seeded-random';

/**
 * Quantised dense_vector index types (ES 8 `int8_hnsw`, `int4_hnsw`, `confidence_interval`) through
 * the official client and raw HTTP on real Postgres: the mapping round-trips, the graph is walked on
 * codes and its candidates re-scored with the floats (scores exact), `_source` keeps the vectors as
 * sent, and bad options are refused as ES refuses them.
 */
describe('int8_hnsw and int4_hnsw', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const DIMS = 32;
  const random = seededRandom(2208);
  const vectors = Array.from({ length: 300 }, () =>
    Array.from({ length: DIMS }, () => Math.round((random() * 2 - 1) * 1000) / 1000),
  );
  const cosine = (a: number[], b: number[]) => {
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i]! * b[i]!;
      na += a[i]! * a[i]!;
      nb += b[i]! * b[i]!;
    }
    return dot / Math.sqrt(na * nb);
  };

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index: 'quant',
      mappings: {
        properties: {
          q8: {
            type: 'dense_vector',
            dims: DIMS,
            similarity: 'cosine',
            index_options: { type: 'int8_hnsw', m: 8, ef_construction: 50, confidence_interval: 0.95 },
          },
          q4: {
            type: 'dense_vector',
            dims: DIMS,
            similarity: 'cosine',
            index_options: { type: 'int4_hnsw' },
          },
        },
      },
    });
    const operations = vectors.flatMap((v, i) => [
      { index: { _index: 'quant', _id: String(i) } },
      { q8: v, q4: v },
    ]);
    expect((await es().bulk({ operations, refresh: true })).errors).toBe(false);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('round-trips the index options in the mapping', async () => {
    const mapping = await es().indices.getMapping({ index: 'quant' });
    expect(mapping.quant!.mappings.properties).toMatchObject({
      q8: { index_options: { type: 'int8_hnsw', m: 8, ef_construction: 50, confidence_interval: 0.95 } },
      q4: { index_options: { type: 'int4_hnsw' } },
    });
  });

  it.each(['q8', 'q4'])('finds the exact nearest neighbours with float scores (%s)', async (field) => {
    let found = 0;
    for (const query of vectors.slice(0, 10)) {
      const truth = vectors
        .map((v, i) => ({ id: String(i), sim: cosine(query, v) }))
        .sort((a, b) => b.sim - a.sim)
        .slice(0, 10);
      const result = await es().search({
        index: 'quant',
        size: 10,
        knn: { field, query_vector: query, k: 10, num_candidates: 50 },
      });
      const ids = new Set(truth.map((t) => t.id));
      for (const hit of result.hits.hits) {
        if (ids.has(hit._id!)) found += 1;
        // Re-scored with the stored floats: ES's (1 + cos) / 2 of the exact vectors, not of codes.
        const exact = Math.fround((1 + cosine(query, vectors[Number(hit._id)]!)) / 2);
        expect(hit._score).toBeCloseTo(exact, 5);
      }
    }
    expect(found / 100).toBeGreaterThanOrEqual(0.9);
  });

  it('returns the vectors exactly as sent in _source', async () => {
    const doc = await es().get<{ q8: number[] }>({ index: 'quant', id: '7' });
    expect(doc._source!.q8).toEqual(vectors[7]);
  });

  it('refuses bad quantisation options with ES mapper_parsing_exception', async () => {
    for (const [field, reason] of [
      [
        { type: 'dense_vector', dims: 4, index_options: { type: 'int8_hnsw', confidence_interval: 0.5 } },
        'confidenceInterval must be between 0.9 and 1.0; confidenceInterval=0.5',
      ],
      [
        { type: 'dense_vector', dims: 4, index_options: { type: 'int4_hnsw', confidence_interval: 2 } },
        'confidenceInterval must be between 0.9 and 1.0; confidenceInterval=2.0',
      ],
      [
        { type: 'dense_vector', dims: 3, index_options: { type: 'int4_hnsw' } },
        'int4_hnsw only supports even dimensions; provided=3',
      ],
      [
        { type: 'dense_vector', dims: 4, element_type: 'byte', index_options: { type: 'int4_hnsw' } },
        '[element_type] cannot be [byte] when using index type [int4_hnsw]',
      ],
      [
        { type: 'dense_vector', dims: 4, index_options: { type: 'hnsw', confidence_interval: 0.95 } },
        'Mapping definition for [f] has unsupported parameters:  [confidence_interval : 0.95]',
      ],
    ] as const) {
      const refused = await failure(
        es().indices.create({ index: 'badquant', mappings: { properties: { f: field as never } } }),
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: 'mapper_parsing_exception', caused_by: { reason } });
    }
  });

  it('accepts confidence_interval 0 (dynamic) over raw HTTP', async () => {
    const created = await call(server.url, 'PUT', '/dyn', {
      mappings: {
        properties: {
          v: { type: 'dense_vector', dims: 2, index_options: { type: 'int8_hnsw', confidence_interval: 0 } },
        },
      },
    });
    expect(created.status).toBe(200);
    await call(server.url, 'PUT', '/dyn/_doc/1?refresh=true', { v: [0.6, 0.8] });
    const found = await call(server.url, 'POST', '/dyn/_search', {
      knn: { field: 'v', query_vector: [0.6, 0.8], k: 1, num_candidates: 1 },
    });
    expect(found.status).toBe(200);
    expect((found.json as { hits: { hits: { _id: string; _score: number }[] } }).hits.hits).toEqual([
      expect.objectContaining({ _id: '1', _score: 1 }),
    ]);
  });
});
