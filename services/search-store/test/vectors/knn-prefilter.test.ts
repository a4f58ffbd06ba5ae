import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { client8 } from '../support/http';
import { seededRandom } from '../support/seeded-random';

/**
 * Which filters a kNN search applies during the graph search, as ES 8's "knn query" reference says
 * (Pre-filters and post-filters in knn query): the `filter` of the top-level knn, of the knn query and
 * of the knn retriever, and the filters of aliases, are pre-filters, so k matching documents come back
 * however selective they are; every other filter of the query tree (a bool's `filter` beside the knn
 * query) applies to the k hits afterwards, so fewer than k may come back.
 */
describe('knn pre-filters and post-filters', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const random = seededRandom(2203);
  // 600 documents: 12 (2 %) `rare`, under 10 × num_candidates, so searched exactly among the filter's
  // documents (Lucene's fallback); 200 in group `a`, over 10 × num_candidates 10, so the graph is
  // walked with the filter as its accepted set (the alias test).
  const docs = Array.from({ length: 600 }, (_, i) => ({
    v: Array.from({ length: 8 }, () => random() * 2 - 1),
    tag: i % 50 === 0 ? 'rare' : 'common',
    group: i % 3 === 0 ? 'a' : 'b',
  }));
  const query = docs[1]!.v;

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index: 'pre',
      mappings: {
        properties: {
          v: { type: 'dense_vector', dims: 8, similarity: 'l2_norm', index_options: { type: 'hnsw' } },
          tag: { type: 'keyword' },
          group: { type: 'keyword' },
        },
      },
    });
    const operations = docs.flatMap((d, i) => [{ index: { _index: 'pre', _id: String(i) } }, d]);
    expect((await es().bulk({ operations, refresh: true })).errors).toBe(false);
    await es().indices.putAlias({ index: 'pre', name: 'only-a', filter: { term: { group: 'a' } } });
  });
  afterAll(async () => {
    await server.stop();
  });

  const ids = (hits: { _id?: string }[]) => hits.map((h) => Number(h._id));

  it('top-level knn: a selective filter still returns k hits, all matching', async () => {
    const result = await es().search({
      index: 'pre',
      size: 10,
      knn: { field: 'v', query_vector: query, k: 10, num_candidates: 20, filter: { term: { tag: 'rare' } } },
    });
    expect(result.hits.hits).toHaveLength(10);
    for (const id of ids(result.hits.hits)) expect(docs[id]!.tag).toBe('rare');
  });

  it('knn query inside bool: its own filter is a pre-filter (k hits)', async () => {
    const result = await es().search({
      index: 'pre',
      size: 20,
      query: {
        bool: {
          must: [
            {
              knn: {
                field: 'v',
                query_vector: query,
                k: 10,
                num_candidates: 20,
                filter: { term: { tag: 'rare' } },
              },
            },
          ],
        },
      },
    });
    expect(result.hits.hits).toHaveLength(10);
    for (const id of ids(result.hits.hits)) expect(docs[id]!.tag).toBe('rare');
  });

  it.each(['filter', 'must', 'should'] as const)(
    "knn query inside bool: the bool's %s clauses beside it filter its k hits afterwards (ES post-filter)",
    async (clause) => {
      const unfiltered = await es().search({
        index: 'pre',
        size: 20,
        query: { knn: { field: 'v', query_vector: query, k: 10, num_candidates: 20 } },
      });
      const result = await es().search({
        index: 'pre',
        size: 20,
        query: {
          bool: {
            must: [
              { knn: { field: 'v', query_vector: query, k: 10, num_candidates: 20 } },
              ...(clause === 'must' ? [{ term: { tag: 'rare' } }] : []),
            ],
            ...(clause !== 'must' && { [clause]: [{ term: { tag: 'rare' } }] }),
            ...(clause === 'should' && { minimum_should_match: 1 }),
          },
        },
      });
      // Exactly the rare ones among the unfiltered k nearest: fewer than k (2 % of them are rare).
      const expected = ids(unfiltered.hits.hits).filter((id) => docs[id]!.tag === 'rare');
      expect(ids(result.hits.hits).sort()).toEqual(expected.sort());
      expect(result.hits.hits.length).toBeLessThan(10);
    },
  );

  it("an alias's filter is a pre-filter: k hits, all in the alias", async () => {
    for (const body of [
      { knn: { field: 'v', query_vector: query, k: 10, num_candidates: 10 } },
      { query: { knn: { field: 'v', query_vector: query, k: 10, num_candidates: 10 } } },
    ]) {
      const result = await es().search({ index: 'only-a', size: 20, ...body });
      expect(result.hits.hits).toHaveLength(10);
      for (const id of ids(result.hits.hits)) expect(docs[id]!.group).toBe('a');
    }
  });

  it('the knn retriever: its filter is a pre-filter (k hits)', async () => {
    const result = await es().search({
      index: 'pre',
      size: 20,
      retriever: {
        knn: {
          field: 'v',
          query_vector: query,
          k: 10,
          num_candidates: 20,
          filter: { term: { tag: 'rare' } },
        },
      },
    });
    expect(result.hits.hits).toHaveLength(10);
    for (const id of ids(result.hits.hits)) expect(docs[id]!.tag).toBe('rare');
  });
});
