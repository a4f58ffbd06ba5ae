import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

/**
 * kNN search and its storage through the official client and raw HTTP on real Postgres (issue 22):
 * mapping options, the stored vectors, scores as ES's similarity transforms, k / num_candidates /
 * filter / similarity / boost, several clauses, hybrid with a query, aggregations over the kNN hits.
 */
describe('dense_vector and knn', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const docs: Record<string, { v: number[]; b: number[]; color: string; text: string }> = {
    a: { v: [1, 0, 0], b: [10, 0, 0], color: 'red', text: 'quick brown fox' },
    b: { v: [0.8, 0.6, 0], b: [8, 6, 0], color: 'blue', text: 'lazy dog' },
    c: { v: [0, 1, 0], b: [0, 10, 0], color: 'red', text: 'quick dog' },
    d: { v: [0, 0, 1], b: [0, 0, 10], color: 'blue', text: 'brown cat' },
    e: { v: [-1, 0, 0], b: [-10, 0, 0], color: 'red', text: 'slow fox' },
  };

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index: 'vec',
      mappings: {
        properties: {
          v: {
            type: 'dense_vector',
            dims: 3,
            similarity: 'cosine',
            index_options: { type: 'hnsw', m: 16, ef_construction: 100 },
          },
          l2: { type: 'dense_vector', dims: 3, similarity: 'l2_norm', index_options: { type: 'flat' } },
          b: { type: 'dense_vector', dims: 3, element_type: 'byte', similarity: 'dot_product' },
          raw: { type: 'dense_vector', dims: 3, index: false },
          color: { type: 'keyword' },
          text: { type: 'text' },
        },
      },
    });
    const operations = Object.entries(docs).flatMap(([id, d]) => [
      { index: { _index: 'vec', _id: id } },
      { v: d.v, l2: d.v, b: d.b, raw: d.v, color: d.color, text: d.text },
    ]);
    const bulk = await es().bulk({ operations, refresh: true });
    expect(bulk.errors).toBe(false);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('stores each vector once, compactly (float32 or int8 bytes), beside its document', async () => {
    const { rows } = await server.pool.query<{ field: string; n: string; bytes: number }>(
      `SELECT field, count(*) AS n, min(octet_length(vec)) AS bytes FROM dense_vectors GROUP BY field ORDER BY field`,
    );
    expect(rows.map((r) => [r.field, Number(r.n), r.bytes])).toEqual([
      ['b', 5, 3],
      ['l2', 5, 12],
      ['raw', 5, 12],
      ['v', 5, 12],
    ]);
    const nodes = await server.pool.query(
      `SELECT field, count(*)::int AS n FROM hnsw_nodes GROUP BY field ORDER BY field`,
    );
    expect(nodes.rows).toEqual([
      { field: 'b', n: 5 },
      { field: 'v', n: 5 },
    ]);
  });

  it('answers the top-level knn with ES cosine scores (1 + cos) / 2, nearest first', async () => {
    const result = await es().search({
      index: 'vec',
      knn: { field: 'v', query_vector: [1, 0, 0], k: 3, num_candidates: 10 },
    });
    expect(result.hits.total).toEqual({ value: 3, relation: 'eq' });
    expect(result.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['a', 1],
      ['b', 0.9],
      ['c', 0.5],
    ]);
  });

  it('scores l2_norm as 1 / (1 + l2²) on a flat field and byte dot_product as 0.5 + dot / (dims · 2^15)', async () => {
    const flat = await es().search({
      index: 'vec',
      knn: { field: 'l2', query_vector: [1, 0, 0], k: 2, num_candidates: 2 },
    });
    expect(flat.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['a', 1],
      ['b', 0.71428573], // 1 / (1 + 0.4) as float32, printed as ES prints floats
    ]);
    const bytes = await es().search({
      index: 'vec',
      knn: { field: 'b', query_vector: [10, 0, 0], k: 1, num_candidates: 5 },
    });
    expect(bytes.hits.hits.map((h) => [h._id, h._score])).toEqual([['a', 0.5010173]]);
  });

  it('applies the filter during the search, the similarity threshold and the boost', async () => {
    const filtered = await es().search({
      index: 'vec',
      knn: {
        field: 'v',
        query_vector: [1, 0, 0],
        k: 2,
        num_candidates: 10,
        filter: { term: { color: 'red' } },
      },
    });
    // b is nearer than c but blue: the filter picks the 2 nearest red documents, not 2 then filtered.
    expect(filtered.hits.hits.map((h) => h._id)).toEqual(['a', 'c']);
    const threshold = await es().search({
      index: 'vec',
      knn: { field: 'v', query_vector: [1, 0, 0], k: 5, num_candidates: 10, similarity: 0.7, boost: 2 },
    });
    expect(threshold.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['a', 2],
      ['b', 1.8],
    ]);
  });

  it('combines several knn clauses and a query as the sum of boosted scores over the union', async () => {
    const result = await es().search({
      index: 'vec',
      query: { match: { text: { query: 'fox', boost: 0 } } },
      knn: [
        { field: 'v', query_vector: [0, 0, 1], k: 1, num_candidates: 5 },
        { field: 'v', query_vector: [0, 1, 0], k: 1, num_candidates: 5, boost: 0.5 },
      ],
    });
    expect(result.hits.total).toEqual({ value: 4, relation: 'eq' });
    expect(result.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['d', 1],
      ['c', 0.5],
      ['a', 0],
      ['e', 0],
    ]);
  });

  it('runs aggregations over the kNN hits', async () => {
    const result = await es().search({
      index: 'vec',
      size: 0,
      knn: { field: 'v', query_vector: [1, 0, 0], k: 3, num_candidates: 10 },
      aggs: { colors: { terms: { field: 'color' } } },
    });
    expect(result.hits.total).toEqual({ value: 3, relation: 'eq' });
    expect((result.aggregations!.colors as { buckets: unknown[] }).buckets).toEqual([
      { key: 'red', doc_count: 2 },
      { key: 'blue', doc_count: 1 },
    ]);
  });

  it('answers the knn query inside a bool, with k defaulting from num_candidates', async () => {
    const result = await es().search({
      index: 'vec',
      query: {
        bool: {
          must: [{ knn: { field: 'v', query_vector: [1, 0, 0], k: 2, num_candidates: 10 } }],
          filter: [{ term: { color: 'red' } }],
        },
      },
    });
    expect(result.hits.hits.map((h) => h._id)).toEqual(['a']);
  });

  it('never returns deleted documents and finds replaced ones by their new vector', async () => {
    await es().indices.create({
      index: 'tmp-vec',
      mappings: { properties: { v: { type: 'dense_vector', dims: 2 } } },
    });
    await es().index({ index: 'tmp-vec', id: 'x', document: { v: [1, 0] }, refresh: true });
    await es().index({ index: 'tmp-vec', id: 'y', document: { v: [0, 1] }, refresh: true });
    await es().delete({ index: 'tmp-vec', id: 'x', refresh: true });
    await es().index({ index: 'tmp-vec', id: 'y', document: { v: [1, 0.1] }, refresh: true });
    const result = await es().search({
      index: 'tmp-vec',
      knn: { field: 'v', query_vector: [1, 0], k: 5, num_candidates: 5 },
    });
    expect(result.hits.hits.map((h) => h._id)).toEqual(['y']);
    const tombstones = await server.pool.query(`SELECT count(*)::int AS n FROM hnsw_nodes WHERE deleted`);
    expect(tombstones.rows[0].n).toBe(2);
  });

  describe('bad input', () => {
    const shardReason = async (body: Record<string, unknown>) => {
      const response = await call(server.url, 'POST', '/vec/_search', body);
      const error = (response.json as { error: { root_cause: { type: string; reason: string }[] } }).error;
      return {
        status: response.status,
        type: error.root_cause[0]!.type,
        reason: error.root_cause[0]!.reason,
      };
    };

    it('refuses a query vector of the wrong dims', async () => {
      expect(
        await shardReason({ knn: { field: 'v', query_vector: [1, 0], k: 1, num_candidates: 1 } }),
      ).toEqual({
        status: 400,
        type: 'illegal_argument_exception',
        reason: 'The query vector has a different number of dimensions [2] than the document vectors [3].',
      });
    });

    it('refuses k > num_candidates, num_candidates over 10,000 and k < 1', async () => {
      for (const [knn, reason] of [
        [{ k: 5, num_candidates: 2 }, '[num_candidates] cannot be less than [k]'],
        [{ k: 5, num_candidates: 10001 }, '[num_candidates] cannot exceed [10000]'],
        [{ k: 0, num_candidates: 2 }, '[k] must be greater than 0'],
        [{ num_candidates: 2 }, '[num_candidates] cannot be less than [k]'],
      ] as const) {
        const refused = await failure(
          es().search({ index: 'vec', knn: { field: 'v', query_vector: [1, 0, 0], ...knn } }),
        );
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatchObject({ type: 'illegal_argument_exception', reason });
      }
    });

    it('refuses knn on a field that is not a dense_vector, or not indexed', async () => {
      expect(
        await shardReason({ knn: { field: 'color', query_vector: [1, 0, 0], k: 1, num_candidates: 1 } }),
      ).toEqual({
        status: 400,
        type: 'illegal_argument_exception',
        reason: '[knn] queries are only supported on [dense_vector] fields',
      });
      expect(
        await shardReason({ knn: { field: 'raw', query_vector: [1, 0, 0], k: 1, num_candidates: 1 } }),
      ).toEqual({
        status: 400,
        type: 'illegal_argument_exception',
        reason: 'to perform knn search on field [raw], its mapping must have [index] set to [true]',
      });
    });

    it('refuses a NaN query vector (sent as a string, JSON has no NaN)', async () => {
      const response = await call(server.url, 'POST', '/vec/_search', {
        knn: { field: 'v', query_vector: [1, 'NaN', 0], k: 1, num_candidates: 1 },
      });
      expect(response.status).toBe(400);
    });

    it('refuses documents with wrong dims, non-numbers, bytes out of range, a zero cosine vector', async () => {
      const bad = [
        [
          { v: [1, 2] },
          "The [dense_vector] field [v] in doc [document with id 'bad'] has a different number of dimensions [2] than defined in the mapping [3]",
        ],
        [{ v: [1, 'NaN', 2] }, '[dense_vector] field [v] only accepts numbers'],
        [
          { b: [1, 2, 300] },
          'element_type [byte] vectors only support integers between [-128, 127] but found [300] at dim [2]; Preview of invalid vector: [1.0, 2.0, 300.0]',
        ],
        [
          { v: [0, 0, 0] },
          'The [cosine] similarity does not support vectors with zero magnitude. Preview of invalid vector: [0.0, 0.0, 0.0]',
        ],
      ] as const;
      for (const [document, reason] of bad) {
        const refused = await failure(es().index({ index: 'vec', id: 'bad', document }));
        expect(refused.status).toBe(400);
        expect((refused.body.error as { caused_by: { reason: string } }).caused_by.reason).toBe(reason);
      }
      const stored = await server.pool.query(`SELECT count(*)::int AS n FROM documents WHERE id = 'bad'`);
      expect(stored.rows[0].n).toBe(0);
    });

    it('refuses bad mapping options with ES mapper_parsing_exception', async () => {
      for (const [field, reason] of [
        [
          { type: 'dense_vector', dims: 3, similarity: 'manhattan' },
          'Unknown value [manhattan] for field [similarity] - accepted values are [l2_norm, cosine, dot_product, max_inner_product]',
        ],
        [
          { type: 'dense_vector', dims: 3, element_type: 'bit4' },
          'invalid element_type [bit4]; available types are [float, byte]',
        ],
        [
          { type: 'dense_vector', dims: 3, index_options: { type: 'ivf' } },
          'Unknown vector index options type [ivf] for field [f]',
        ],
        [
          { type: 'dense_vector', dims: 4097 },
          'The number of dimensions should be in the range [1, 4096] but was [4097]',
        ],
      ] as const) {
        const refused = await failure(
          es().indices.create({ index: 'badmap', mappings: { properties: { f: field as never } } }),
        );
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatchObject({ type: 'mapper_parsing_exception', caused_by: { reason } });
      }
    });
  });
});
