import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8 } from '../support/http';

/** The exact path (script_score with the vector functions) and reciprocal rank fusion through `retriever`. */
describe('script_score vector functions and rrf', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index: 'ss',
      mappings: {
        properties: {
          v: { type: 'dense_vector', dims: 2, similarity: 'l2_norm' },
          text: { type: 'text' },
          n: { type: 'integer' },
        },
      },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'ss', _id: '1' } },
        { v: [3, 4], text: 'apple banana', n: 1 },
        { index: { _index: 'ss', _id: '2' } },
        { v: [1, 0], text: 'apple', n: 2 },
        { index: { _index: 'ss', _id: '3' } },
        { v: [0, 2], text: 'cherry', n: 3 },
        { index: { _index: 'ss', _id: '4' } },
        { text: 'apple cherry', n: 4 },
      ],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  const scriptScore = (source: string, query: object = { exists: { field: 'v' } }) =>
    es().search({
      index: 'ss',
      query: { script_score: { query, script: { source, params: { qv: [1, 0] } } } },
    });

  it.each([
    [
      "cosineSimilarity(params.qv, 'v') + 1.0",
      [
        ['2', 2],
        ['1', 1.6],
        ['3', 1],
      ],
    ],
    [
      "dotProduct(params.qv, 'v') + 1",
      [
        ['1', 4],
        ['2', 2],
        ['3', 1],
      ],
    ],
    [
      "1 / (1 + l1norm(params.qv, 'v'))",
      [
        ['2', 1],
        ['3', 0.25],
        ['1', Math.fround(1 / 7)],
      ],
    ],
    [
      "1 / (1 + l2norm(params.qv, 'v'))",
      [
        ['2', 1],
        ['3', Math.fround(1 / (1 + Math.sqrt(5)))],
        ['1', Math.fround(1 / (1 + Math.sqrt(20)))],
      ],
    ],
  ])('scores %s over the query matches exactly', async (source, expected) => {
    const result = await scriptScore(source);
    expect(result.hits.hits.map((h) => [h._id, h._score])).toEqual(
      (expected as [string, number][]).map(([id, s]) => [id, Number(Math.fround(s).toPrecision(8))]),
    );
  });

  it('uses _score of the inner query and min_score', async () => {
    const result = await es().search({
      index: 'ss',
      query: {
        script_score: {
          query: { bool: { must: [{ match: { text: 'apple' } }], filter: [{ exists: { field: 'v' } }] } },
          script: { source: "_score * 0 + dotProduct(params.qv, 'v')", params: { qv: [1, 0] } },
          min_score: 2,
        },
      },
    });
    expect(result.hits.hits.map((h) => [h._id, h._score])).toEqual([['1', 3]]);
  });

  it('fails as ES when a matched document has no vector, or the script score is negative', async () => {
    const missing = await call(server.url, 'POST', '/ss/_search', {
      query: {
        script_score: {
          query: { match_all: {} },
          script: { source: "dotProduct(params.qv, 'v')", params: { qv: [1, 0] } },
        },
      },
    });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.json)).toContain("A document doesn't have a value for a vector field!");
    const negative = await call(server.url, 'POST', '/ss/_search', {
      query: {
        script_score: {
          query: { exists: { field: 'v' } },
          script: { source: "dotProduct(params.qv, 'v') - 10", params: { qv: [1, 0] } },
        },
      },
    });
    expect(negative.status).toBe(400);
    expect(JSON.stringify(negative.json)).toContain('Must be a non-negative score!');
    const dims = await call(server.url, 'POST', '/ss/_search', {
      query: {
        script_score: {
          query: { exists: { field: 'v' } },
          script: { source: "l2norm(params.qv, 'v')", params: { qv: [1, 0, 0] } },
        },
      },
    });
    expect(dims.status).toBe(400);
    expect(JSON.stringify(dims.json)).toContain(
      'The query vector has a different number of dimensions [3] than the document vectors [2].',
    );
  });

  it('fuses a standard and a knn retriever with rrf: 1 / (rank_constant + rank) summed', async () => {
    const result = await es().search({
      index: 'ss',
      retriever: {
        rrf: {
          retrievers: [
            { standard: { query: { match: { text: 'cherry' } } } },
            { knn: { field: 'v', query_vector: [0, 2], k: 3, num_candidates: 10 } },
          ],
          rank_constant: 10,
          rank_window_size: 10,
        },
      },
    });
    // text: 3 (shorter field) then 4; knn: 3, 2, 1 by l2 distance from (0, 2).
    const s = (...ranks: number[]) =>
      Number(Math.fround(ranks.reduce((a, r) => a + 1 / (10 + r), 0)).toPrecision(8));
    expect(result.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['3', s(1, 1)],
      ['2', s(2)], // ties in index order, as ES's shard doc order
      ['4', s(2)],
      ['1', s(3)],
    ]);
  });

  it('refuses a retriever beside a query, and a bad rank_constant', async () => {
    const both = await call(server.url, 'POST', '/ss/_search', {
      query: { match_all: {} },
      retriever: { standard: { query: { match_all: {} } } },
    });
    expect(both.status).toBe(400);
    const constant = await call(server.url, 'POST', '/ss/_search', {
      retriever: { rrf: { retrievers: [{ standard: { query: { match_all: {} } } }], rank_constant: 0 } },
    });
    expect(constant.status).toBe(400);
    expect(JSON.stringify(constant.json)).toContain(
      '[rank_constant] must be greater or equal to [1] for [rrf]',
    );
  });
});
