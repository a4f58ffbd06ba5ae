import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8 } from '../support/http';

/**
 * The sparse_vector query over the postings: each token's weight is its posting's freq, encoded as
 * Lucene's FeatureField does (float32 bits >>> 15, so 0.1 reads back as 0.099853516), and a
 * document's score is Σ query weight × stored weight × boost.
 */
describe('sparse_vector query', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index: 'sp',
      mappings: { properties: { tokens: { type: 'sparse_vector' }, tag: { type: 'keyword' } } },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'sp', _id: '1' } },
        { tokens: { apple: 0.5, pie: 2 }, tag: 'x' },
        { index: { _index: 'sp', _id: '2' } },
        { tokens: { pie: 1.5, tart: 3 }, tag: 'y' },
        { index: { _index: 'sp', _id: '3' } },
        { tokens: { tart: 1 }, tag: 'x' },
        { index: { _index: 'sp', _id: '4' } },
        { tokens: { apple: 0.1 }, tag: 'y' },
      ],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  const search = (query: object) => es().search({ index: 'sp', query });

  it('scores the dot product of the query vector and the stored weights', async () => {
    const result = await search({ sparse_vector: { field: 'tokens', query_vector: { apple: 1, pie: 2 } } });
    expect(result.hits.total).toEqual({ value: 3, relation: 'eq' });
    expect(result.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['1', 4.5],
      ['2', 3],
      ['4', 0.099853516],
    ]);
  });

  it('applies boost, combines in a bool, and follows deletes and updates', async () => {
    const boosted = await search({
      bool: {
        must: [{ sparse_vector: { field: 'tokens', query_vector: { tart: 1 }, boost: 2 } }],
        filter: [{ term: { tag: 'x' } }],
      },
    });
    expect(boosted.hits.hits.map((h) => [h._id, h._score])).toEqual([['3', 2]]);
    await es().index({ index: 'sp', id: '3', document: { tokens: { pie: 1 }, tag: 'x' }, refresh: true });
    await es().delete({ index: 'sp', id: '2', refresh: true });
    const after = await search({ sparse_vector: { field: 'tokens', query_vector: { tart: 1, pie: 1 } } });
    expect(after.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['1', 2],
      ['3', 1],
    ]);
  });

  it('refuses a sparse_vector query on another field type, inference, and bad weights', async () => {
    const wrongType = await call(server.url, 'POST', '/sp/_search', {
      query: { sparse_vector: { field: 'tag', query_vector: { a: 1 } } },
    });
    expect(wrongType.status).toBe(400);
    expect(JSON.stringify(wrongType.json)).toContain(
      'field [tag] must be type [sparse_vector] but is type [keyword]',
    );
    const inference = await call(server.url, 'POST', '/sp/_search', {
      query: { sparse_vector: { field: 'tokens', inference_id: 'elser', query: 'pie' } },
    });
    expect(inference.status).toBe(400);
    const bad = await call(server.url, 'POST', '/sp/_search', {
      query: { sparse_vector: { field: 'tokens', query_vector: { a: 'x' } } },
    });
    expect(bad.status).toBe(400);
    const doc = await call(server.url, 'PUT', '/sp/_doc/bad', { tokens: { a: -1 } });
    expect(doc.status).toBe(400);
  });
});
