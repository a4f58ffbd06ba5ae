import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

/**
 * The `nested` field type and query (ES reference "Nested field type", "Nested query"; YAML tests
 * search/ nested and search.inner_hits): each object of a nested array is matched on its own, scores
 * are Lucene's block join scores over the objects' own BM25 scores, and a nested object's fields are
 * not searchable outside a nested query unless it includes them in its parent or root.
 */
describe('nested fields and the nested query', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'nested-blog';
  const flat = 'nested-blog-flat';
  const ids = async (query: Record<string, unknown>, on = index) =>
    (await es().search({ index: on, query, size: 20 })).hits.hits.map((h) => h._id).sort();

  const posts: Record<
    string,
    { title: string; comments: { author: string; text: string; stars: number }[] }
  > = {
    '1': {
      title: 'nested objects',
      comments: [
        { author: 'alice', text: 'great post about search', stars: 5 },
        { author: 'bob', text: 'search is hard', stars: 2 },
      ],
    },
    '2': {
      title: 'flat objects',
      comments: [
        { author: 'alice', text: 'not about search at all', stars: 1 },
        { author: 'carol', text: 'great', stars: 4 },
      ],
    },
    '3': { title: 'no comments', comments: [] },
  };

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      mappings: {
        properties: {
          title: { type: 'text' },
          comments: {
            type: 'nested',
            properties: { author: { type: 'keyword' }, text: { type: 'text' }, stars: { type: 'integer' } },
          },
        },
      },
    });
    // Each comment as a document of its own: the statistics ES's hidden nested documents have.
    await es().indices.create({
      index: flat,
      mappings: {
        properties: {
          comments: {
            properties: { author: { type: 'keyword' }, text: { type: 'text' }, stars: { type: 'integer' } },
          },
        },
      },
    });
    await es().bulk({
      refresh: true,
      operations: Object.entries(posts).flatMap(([id, doc]) => [{ index: { _index: index, _id: id } }, doc]),
    });
    await es().bulk({
      refresh: true,
      operations: Object.entries(posts).flatMap(([id, doc]) =>
        doc.comments.flatMap((c, i) => [{ index: { _index: flat, _id: `${id}.${i}` } }, { comments: c }]),
      ),
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('keeps the mapping with its type and include flags', async () => {
    await es().indices.create({
      index: 'nested-flags',
      mappings: {
        properties: { n: { type: 'nested', include_in_parent: true, properties: { a: { type: 'long' } } } },
      },
    });
    const mapping = await es().indices.getMapping({ index: 'nested-flags' });
    expect(mapping['nested-flags']?.mappings.properties?.n).toEqual({
      type: 'nested',
      include_in_parent: true,
      properties: { a: { type: 'long' } },
    });
    const raw = await call(server.url, 'PUT', '/nested-flags/_mapping', {
      properties: { n: { type: 'object' } },
    });
    expect(raw.status).toBe(400);
    expect(raw.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: "can't merge a non-nested mapping [n] with a nested mapping",
      },
    });
  });

  it('matches two conditions only when one and the same object meets both', async () => {
    const both = {
      bool: { must: [{ term: { 'comments.author': 'alice' } }, { range: { 'comments.stars': { gte: 4 } } }] },
    };
    expect(await ids({ nested: { path: 'comments', query: both } })).toEqual(['1']);
    // The same conditions over a flattened object array would match both documents.
    expect(
      await ids({ nested: { path: 'comments', query: { term: { 'comments.author': 'carol' } } } }),
    ).toEqual(['2']);
    expect(await ids({ nested: { path: 'comments', query: { match_all: {} } } })).toEqual(['1', '2']);
  });

  it('finds nothing on a nested field outside a nested query, as ES', async () => {
    expect(await ids({ term: { 'comments.author': 'alice' } })).toEqual([]);
    expect(await ids({ exists: { field: 'comments' } })).toEqual([]);
    expect(await ids({ match: { title: 'objects' } })).toEqual(['1', '2']);
    const count = await es().count({
      index,
      query: { nested: { path: 'comments', query: { match: { 'comments.text': 'search' } } } },
    });
    expect(count.count).toBe(2);
  });

  it('scores the average of the matching objects’ scores by default, and sum, max, min, none', async () => {
    const inner = { match: { 'comments.text': 'search great' } };
    const childScores = new Map<string, number[]>();
    const flatHits = await es().search({ index: flat, query: inner, size: 20 });
    for (const hit of flatHits.hits.hits) {
      const doc = hit._id!.split('.')[0]!;
      childScores.set(doc, [...(childScores.get(doc) ?? []), hit._score!]);
    }
    const f = Math.fround;
    const expected = {
      avg: (s: number[]) => f(s.reduce((a, b) => a + b, 0) / s.length),
      sum: (s: number[]) => f(s.reduce((a, b) => a + b, 0)),
      max: (s: number[]) => Math.max(...s),
      min: (s: number[]) => Math.min(...s),
      none: () => 0,
    };
    for (const [mode, combine] of Object.entries(expected)) {
      const result = await es().search({
        index,
        query: { nested: { path: 'comments', query: inner, score_mode: mode as 'avg' } },
      });
      const scores = Object.fromEntries(result.hits.hits.map((h) => [h._id, h._score]));
      expect(Object.keys(scores).sort()).toEqual(['1', '2']);
      for (const [doc, s] of childScores) expect(scores[doc]).toBeCloseTo(combine(s), 6);
    }
  });

  it('explains a nested query as Lucene’s block join: matching children and the best one', async () => {
    const result = await es().search({
      index,
      explain: true,
      query: {
        nested: { path: 'comments', score_mode: 'max', query: { match: { 'comments.text': 'search' } } },
      },
    });
    const hit = result.hits.hits.find((h) => h._id === '1')!;
    const explanation = hit._explanation as {
      value: number;
      description: string;
      details: { value: number }[];
    };
    expect(explanation.value).toBe(hit._score);
    expect(explanation.description).toBe(
      'Score based on 2 child docs in range from 0 to 1, using score mode Max',
    );
    expect(explanation.details).toHaveLength(1);
    expect(explanation.details[0]!.value).toBe(hit._score);
  });

  it('refuses an unknown path and a path that is not nested, unless ignore_unmapped', async () => {
    const unknown = await failure(
      es().search({ index, query: { nested: { path: 'nope', query: { match_all: {} } } } }),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [
          {
            type: 'query_shard_exception',
            reason: 'failed to create query: [nested] failed to find nested object under path [nope]',
          },
        ],
      },
    });
    expect(await ids({ nested: { path: 'nope', ignore_unmapped: true, query: { match_all: {} } } })).toEqual(
      [],
    );
    await es().indices.create({
      index: 'nested-plain',
      mappings: { properties: { o: { properties: { a: { type: 'long' } } } } },
    });
    const plain = await failure(
      es().search({ index: 'nested-plain', query: { nested: { path: 'o', query: { match_all: {} } } } }),
    );
    expect(plain.status).toBe(400);
    expect((plain.body.error as { root_cause: unknown[] }).root_cause[0]).toEqual({
      type: 'query_shard_exception',
      reason: 'failed to create query: [nested] nested object under path [o] is not of nested type',
      caused_by: {
        type: 'illegal_state_exception',
        reason: '[nested] nested object under path [o] is not of nested type',
      },
    });
    const mode = await call(server.url, 'POST', `/${index}/_search`, {
      query: { nested: { path: 'comments', score_mode: 'median', query: { match_all: {} } } },
    });
    expect(mode.status).toBe(400);
    expect(mode.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'illegal score_mode for nested query [median]' },
    });
    const noPath = await call(server.url, 'POST', `/${index}/_search`, {
      query: { nested: { query: { match_all: {} } } },
    });
    expect(noPath.status).toBe(400);
    expect(noPath.json).toMatchObject({
      error: { type: 'parsing_exception', reason: "[nested] requires 'path' field" },
    });
  });

  it('follows replaced and deleted documents', async () => {
    await es().index({
      index,
      id: '9',
      refresh: true,
      document: { comments: [{ author: 'dave', stars: 3 }] },
    });
    const dave = { nested: { path: 'comments', query: { term: { 'comments.author': 'dave' } } } };
    expect(await ids(dave)).toEqual(['9']);
    await es().index({
      index,
      id: '9',
      refresh: true,
      document: { comments: [{ author: 'erin', stars: 3 }] },
    });
    expect(await ids(dave)).toEqual([]);
    expect(
      await ids({ nested: { path: 'comments', query: { term: { 'comments.author': 'erin' } } } }),
    ).toEqual(['9']);
    await es().delete({ index, id: '9', refresh: true });
    expect(
      await ids({ nested: { path: 'comments', query: { term: { 'comments.author': 'erin' } } } }),
    ).toEqual([]);
  });

  it('nests nested queries over multi-level paths, and reaches a deep path from the top', async () => {
    await es().indices.create({
      index: 'nested-deep',
      mappings: {
        properties: {
          a: {
            type: 'nested',
            properties: {
              n: { type: 'keyword' },
              b: { type: 'nested', properties: { m: { type: 'keyword' } } },
            },
          },
        },
      },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'nested-deep', _id: '1' } },
        {
          a: [
            { n: 'p', b: [{ m: 'q' }] },
            { n: 'r', b: [{ m: 's' }] },
          ],
        },
        { index: { _index: 'nested-deep', _id: '2' } },
        { a: [{ n: 'p', b: [{ m: 's' }] }] },
      ],
    });
    const within = (n: string, m: string) => ({
      nested: {
        path: 'a',
        query: {
          bool: {
            must: [{ term: { 'a.n': n } }, { nested: { path: 'a.b', query: { term: { 'a.b.m': m } } } }],
          },
        },
      },
    });
    expect(await ids(within('p', 's'), 'nested-deep')).toEqual(['2']);
    expect(await ids(within('r', 's'), 'nested-deep')).toEqual(['1']);
    expect(await ids(within('r', 'q'), 'nested-deep')).toEqual([]);
    expect(await ids({ nested: { path: 'a.b', query: { term: { 'a.b.m': 's' } } } }, 'nested-deep')).toEqual([
      '1',
      '2',
    ]);
  });

  it('indexes include_in_parent and include_in_root fields in the parent and root too', async () => {
    await es().indices.create({
      index: 'nested-included',
      mappings: {
        properties: {
          p: {
            type: 'nested',
            include_in_parent: true,
            properties: { k: { type: 'keyword' }, v: { type: 'long' } },
          },
          r: { type: 'nested', include_in_root: true, properties: { k: { type: 'keyword' } } },
        },
      },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'nested-included', _id: '1' } },
        {
          p: [
            { k: 'x', v: 1 },
            { k: 'y', v: 2 },
          ],
          r: [{ k: 'z' }],
        },
        { index: { _index: 'nested-included', _id: '2' } },
        { p: [{ k: 'x', v: 2 }] },
      ],
    });
    // Flattened in the parent: x and 2 across objects match document 1 as an object array would.
    const across = { bool: { must: [{ term: { 'p.k': 'x' } }, { term: { 'p.v': 2 } }] } };
    expect(await ids(across, 'nested-included')).toEqual(['1', '2']);
    expect(await ids({ nested: { path: 'p', query: across } }, 'nested-included')).toEqual(['2']);
    expect(await ids({ term: { 'r.k': 'z' } }, 'nested-included')).toEqual(['1']);
    const counted = await es().count({ index: 'nested-included', query: { term: { 'p.k': 'x' } } });
    expect(counted.count).toBe(2);
    const scored = await es().search({ index: 'nested-included', query: { match: { 'p.k': 'x' } } });
    expect(scored.hits.hits.map((h) => h._id).sort()).toEqual(['1', '2']);
  });

  it('enforces index.mapping.nested_fields.limit on mappings and nested_objects.limit on documents', async () => {
    const created = await call(server.url, 'PUT', '/nested-limits', {
      settings: { 'index.mapping.nested_fields.limit': 1, 'index.mapping.nested_objects.limit': 2 },
      mappings: { properties: { a: { type: 'nested' } } },
    });
    expect(created.status).toBe(200);
    const second = await call(server.url, 'PUT', '/nested-limits/_mapping', {
      properties: { b: { type: 'nested' } },
    });
    expect(second.status).toBe(400);
    expect(second.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'Limit of nested fields [1] has been exceeded' },
    });
    const tooMany = await call(server.url, 'PUT', '/nested-limits-2', {
      settings: { 'index.mapping.nested_fields.limit': 1 },
      mappings: { properties: { a: { type: 'nested', properties: { b: { type: 'nested' } } } } },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json).toMatchObject({ error: { reason: 'Limit of nested fields [1] has been exceeded' } });
    expect((await call(server.url, 'PUT', '/nested-limits/_doc/1', { a: [{ x: 1 }, { x: 2 }] })).status).toBe(
      201,
    );
    const over = await call(server.url, 'PUT', '/nested-limits/_doc/2', {
      a: [{ x: 1 }, { x: 2 }, { x: 3 }],
    });
    expect(over.status).toBe(400);
    expect(over.json).toMatchObject({
      error: {
        type: 'document_parsing_exception',
        reason: expect.stringMatching(
          /^\[1:\d+\] The number of nested documents has exceeded the allowed limit of \[2\]\. This limit can be set by changing the \[index\.mapping\.nested_objects\.limit\] index level setting\.$/,
        ),
      },
    });
    expect((await call(server.url, 'GET', '/nested-limits/_doc/2')).status).toBe(404);
  });
});

describe('nested inner_hits', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'nested-inner';

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      mappings: {
        properties: {
          comments: {
            type: 'nested',
            properties: {
              author: { type: 'keyword' },
              text: { type: 'text' },
              votes: {
                type: 'nested',
                properties: { value: { type: 'integer' }, voter: { type: 'keyword' } },
              },
            },
          },
        },
      },
    });
    await es().index({
      index,
      id: '1',
      refresh: true,
      document: {
        comments: [
          {
            author: 'alice',
            text: 'search engines',
            votes: [
              { value: 1, voter: 'x' },
              { value: 5, voter: 'y' },
            ],
          },
          { author: 'bob', text: 'nothing here', votes: [] },
          { author: 'carol', text: 'search search', votes: { value: 3, voter: 'z' } },
          { author: 'dave', text: 'search', votes: [] },
          { author: 'erin', text: 'a search engine for search', votes: [] },
        ],
      },
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('returns the best three matching objects with _nested, their own score and source', async () => {
    const result = await es().search({
      index,
      query: {
        nested: { path: 'comments', query: { match: { 'comments.text': 'search' } }, inner_hits: {} },
      },
    });
    const inner = result.hits.hits[0]!.inner_hits!.comments!.hits;
    expect(inner.total).toEqual({ value: 4, relation: 'eq' });
    expect(inner.hits).toHaveLength(3);
    for (const hit of inner.hits) {
      expect(hit._index).toBe(index);
      expect(hit._id).toBe('1');
      expect(Object.keys(hit)).toEqual(['_index', '_id', '_nested', '_score', '_source']);
    }
    const scores = inner.hits.map((h) => h._score!);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(inner.max_score).toBe(scores[0]);
    // The parent's score is the average over all four matching objects.
    const flat = inner.hits.map((h) => (h._source as { author: string }).author);
    expect(flat).not.toContain('bob');
    const first = inner.hits[0]!;
    const offset = (first._nested as { offset: number }).offset;
    expect(first._nested).toEqual({ field: 'comments', offset });
    expect((first._source as { author: string }).author).toBe(
      ['alice', 'bob', 'carol', 'dave', 'erin'][offset],
    );
  });

  it('pages, sorts and filters the source of inner hits, with a name and totals as integers', async () => {
    const raw = await call(server.url, 'POST', `/${index}/_search?rest_total_hits_as_int=true`, {
      query: {
        nested: {
          path: 'comments',
          query: { match_all: {} },
          inner_hits: {
            name: 'all',
            from: 1,
            size: 2,
            sort: [{ 'comments.author': 'desc' }],
            _source: ['comments.author'],
          },
        },
      },
    });
    expect(raw.status).toBe(200);
    const body = raw.json as {
      hits: { hits: { inner_hits: Record<string, { hits: Record<string, unknown> }> }[] };
    };
    const inner = body.hits.hits[0]!.inner_hits.all!.hits;
    expect(inner.total).toBe(5);
    expect(inner.max_score).toBeNull();
    expect(inner.hits).toEqual([
      {
        _index: index,
        _id: '1',
        _nested: { field: 'comments', offset: 3 },
        _score: null,
        _source: { author: 'dave' },
        sort: ['dave'],
      },
      {
        _index: index,
        _id: '1',
        _nested: { field: 'comments', offset: 2 },
        _score: null,
        _source: { author: 'carol' },
        sort: ['carol'],
      },
    ]);
  });

  it('names multi-level objects by their chain, and reports inner hits of inner nested queries inside', async () => {
    const deep = await es().search({
      index,
      query: {
        nested: {
          path: 'comments.votes',
          query: { range: { 'comments.votes.value': { gte: 3 } } },
          inner_hits: {},
        },
      },
    });
    const votes = deep.hits.hits[0]!.inner_hits!['comments.votes']!.hits;
    expect(votes.total).toEqual({ value: 2, relation: 'eq' });
    expect(votes.hits.map((h) => h._nested).sort((a, b) => (a!.offset > b!.offset ? 1 : -1))).toEqual([
      { field: 'comments', offset: 0, _nested: { field: 'votes', offset: 1 } },
      { field: 'comments', offset: 2, _nested: { field: 'votes', offset: 0 } },
    ]);
    const outer = await es().search({
      index,
      query: {
        nested: {
          path: 'comments',
          inner_hits: {},
          query: {
            nested: {
              path: 'comments.votes',
              query: { term: { 'comments.votes.voter': 'y' } },
              inner_hits: {},
            },
          },
        },
      },
    });
    const comment = outer.hits.hits[0]!.inner_hits!.comments!.hits;
    expect(comment.total).toEqual({ value: 1, relation: 'eq' });
    expect(comment.hits[0]!._nested).toEqual({ field: 'comments', offset: 0 });
    const vote = comment.hits[0]!.inner_hits!['comments.votes']!.hits;
    expect(vote.hits.map((h) => [h._nested, h._source])).toEqual([
      [
        { field: 'comments', offset: 0, _nested: { field: 'votes', offset: 1 } },
        { value: 5, voter: 'y' },
      ],
    ]);
  });

  it('fetches version, docvalue_fields and highlight per inner hit, and no _source when it is disabled', async () => {
    const result = await es().search({
      index,
      query: {
        nested: {
          path: 'comments',
          query: { match: { 'comments.text': 'engines' } },
          inner_hits: {
            version: true,
            seq_no_primary_term: true,
            docvalue_fields: ['comments.author'],
            highlight: { fields: { 'comments.text': {} } },
          },
        },
      },
    });
    const hit = result.hits.hits[0]!.inner_hits!.comments!.hits.hits[0]!;
    expect(hit).toMatchObject({
      _nested: { field: 'comments', offset: 0 },
      _version: 1,
      _seq_no: 0,
      _primary_term: 1,
      fields: { 'comments.author': ['alice'] },
      highlight: { 'comments.text': ['search <em>engines</em>'] },
    });
    await es().indices.create({
      index: 'nested-no-source',
      mappings: {
        _source: { enabled: false },
        properties: { n: { type: 'nested', properties: { k: { type: 'keyword' } } } },
      },
    });
    await es().index({ index: 'nested-no-source', id: '1', refresh: true, document: { n: { k: 'v' } } });
    const bare = await es().search({
      index: 'nested-no-source',
      query: { nested: { path: 'n', query: { match_all: {} }, inner_hits: {} } },
    });
    const inner = bare.hits.hits[0]!.inner_hits!.n!.hits.hits[0]!;
    expect(inner._id).toBe('1');
    expect(inner._nested).toEqual({ field: 'n', offset: 0 });
    expect(inner).not.toHaveProperty('_source');
  });

  it('refuses two inner hits of one name', async () => {
    const raw = await call(server.url, 'POST', `/${index}/_search`, {
      query: {
        bool: {
          should: [
            { nested: { path: 'comments', query: { match_all: {} }, inner_hits: {} } },
            { nested: { path: 'comments', query: { match_all: {} }, inner_hits: {} } },
          ],
        },
      },
    });
    expect(raw.status).toBe(400);
    expect(raw.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: '[inner_hits] already contains an entry for key [comments]',
      },
    });
  });
});

describe('nested and reverse_nested aggregations', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'nested-aggs';

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      mappings: {
        properties: {
          shop: { type: 'keyword' },
          items: {
            type: 'nested',
            properties: {
              sku: { type: 'keyword' },
              price: { type: 'double' },
              tags: { type: 'nested', properties: { tag: { type: 'keyword' } } },
            },
          },
        },
      },
    });
    const docs = [
      {
        shop: 'a',
        items: [
          { sku: 'x', price: 10, tags: [{ tag: 'red' }, { tag: 'big' }] },
          { sku: 'y', price: 20 },
        ],
      },
      { shop: 'b', items: [{ sku: 'x', price: 30, tags: { tag: 'red' } }] },
      { shop: 'b', items: [] },
    ];
    await es().bulk({
      refresh: true,
      operations: docs.flatMap((doc, i) => [{ index: { _index: index, _id: String(i + 1) } }, doc]),
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('counts nested objects, aggregates their fields and goes back to documents', async () => {
    const result = await es().search({
      index,
      size: 0,
      aggs: {
        items: {
          nested: { path: 'items' },
          aggs: {
            skus: {
              terms: { field: 'items.sku' },
              aggs: { shops: { reverse_nested: {}, aggs: { names: { terms: { field: 'shop' } } } } },
            },
            prices: { stats: { field: 'items.price' } },
            tags: { nested: { path: 'items.tags' }, aggs: { t: { terms: { field: 'items.tags.tag' } } } },
            cheap: { filter: { range: { 'items.price': { lt: 25 } } } },
          },
        },
        outside: { terms: { field: 'items.sku' } },
      },
    });
    expect(result.hits.total).toEqual({ value: 3, relation: 'eq' });
    expect(result.aggregations).toEqual({
      items: {
        doc_count: 3,
        skus: {
          doc_count_error_upper_bound: 0,
          sum_other_doc_count: 0,
          buckets: [
            {
              key: 'x',
              doc_count: 2,
              shops: {
                doc_count: 2,
                names: {
                  doc_count_error_upper_bound: 0,
                  sum_other_doc_count: 0,
                  buckets: [
                    { key: 'a', doc_count: 1 },
                    { key: 'b', doc_count: 1 },
                  ],
                },
              },
            },
            {
              key: 'y',
              doc_count: 1,
              shops: {
                doc_count: 1,
                names: {
                  doc_count_error_upper_bound: 0,
                  sum_other_doc_count: 0,
                  buckets: [{ key: 'a', doc_count: 1 }],
                },
              },
            },
          ],
        },
        prices: { count: 3, min: 10, max: 30, avg: 20, sum: 60 },
        tags: {
          doc_count: 3,
          t: {
            doc_count_error_upper_bound: 0,
            sum_other_doc_count: 0,
            buckets: [
              { key: 'red', doc_count: 2 },
              { key: 'big', doc_count: 1 },
            ],
          },
        },
        cheap: { doc_count: 2 },
      },
      // A nested object's field outside a nested aggregation finds no documents (ES).
      outside: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
    });
  });

  it('follows the query: only the matched documents’ objects count', async () => {
    const result = await es().search({
      index,
      size: 0,
      query: { term: { shop: 'b' } },
      aggs: { items: { nested: { path: 'items' }, aggs: { n: { value_count: { field: 'items.sku' } } } } },
    });
    expect(result.aggregations).toEqual({ items: { doc_count: 1, n: { value: 1 } } });
  });

  it('answers an unmapped path with an empty bucket and refuses bad definitions', async () => {
    const empty = await es().search({ index, size: 0, aggs: { n: { nested: { path: 'nope' } } } });
    expect(empty.aggregations).toEqual({ n: { doc_count: 0 } });
    const top = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: { r: { reverse_nested: {} } },
    });
    expect(top.status).toBe(400);
    expect(top.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'Reverse nested aggregation [r] can only be used inside a [nested] aggregation',
      },
    });
    const noPath = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: { n: { nested: {} } },
    });
    expect(noPath.status).toBe(400);
    expect(noPath.json).toMatchObject({
      error: { type: 'parsing_exception', reason: 'Missing [path] field for nested aggregation [n]' },
    });
  });
});

describe('sorting by nested fields', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'nested-sort';

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      mappings: {
        properties: {
          offers: { type: 'nested', properties: { price: { type: 'double' }, color: { type: 'keyword' } } },
        },
      },
    });
    const docs = [
      {
        offers: [
          { price: 5, color: 'red' },
          { price: 50, color: 'blue' },
        ],
      },
      {
        offers: [
          { price: 20, color: 'blue' },
          { price: 30, color: 'red' },
        ],
      },
      { offers: [{ price: 1, color: 'green' }] },
      { other: true },
    ];
    await es().bulk({
      refresh: true,
      operations: docs.flatMap((doc, i) => [{ index: { _index: index, _id: String(i + 1) } }, doc]),
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  const sorted = async (sort: Record<string, unknown>) => {
    const result = await es().search({ index, sort: [sort as never] });
    return result.hits.hits.map((h) => [h._id, h.sort?.[0]]);
  };

  it('sorts by the objects’ values with mode and a filter on the objects, missing last', async () => {
    expect(await sorted({ 'offers.price': { order: 'asc', nested: { path: 'offers' } } })).toEqual([
      ['3', 1],
      ['1', 5],
      ['2', 20],
      ['4', null],
    ]);
    expect(await sorted({ 'offers.price': { order: 'desc', nested: { path: 'offers' } } })).toEqual([
      ['1', 50],
      ['2', 30],
      ['3', 1],
      ['4', null],
    ]);
    expect(
      await sorted({ 'offers.price': { order: 'asc', mode: 'avg', nested: { path: 'offers' } } }),
    ).toEqual([
      ['3', 1],
      ['2', 25],
      ['1', 27.5],
      ['4', null],
    ]);
    expect(
      await sorted({
        'offers.price': {
          order: 'asc',
          nested: { path: 'offers', filter: { term: { 'offers.color': 'red' } } },
        },
      }),
    ).toEqual([
      ['1', 5],
      ['2', 30],
      ['3', null],
      ['4', null],
    ]);
  });

  it('refuses a sort whose nested path is not mapped', async () => {
    const raw = await call(server.url, 'POST', `/${index}/_search`, {
      sort: [{ 'offers.price': { nested: { path: 'nope' } } }],
    });
    expect(raw.status).toBe(400);
    expect(raw.json).toMatchObject({
      error: {
        root_cause: [
          {
            type: 'query_shard_exception',
            reason: 'failed to create query: [nested] failed to find nested object under path [nope]',
          },
        ],
      },
    });
  });
});
