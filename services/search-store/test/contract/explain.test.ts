import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

/** ES "Explain API" (yaml: explain/10_basic, 20_source_filtering, 30_query_string). */
describe('GET|POST /<index>/_explain/<id>', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().indices.create({
      index: 'books',
      mappings: {
        properties: { title: { type: 'text' }, tag: { type: 'keyword' }, year: { type: 'integer' } },
      },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'books', _id: '1' } },
        { title: 'the quick brown fox', tag: 'animal', year: 2001 },
        { index: { _index: 'books', _id: '2' } },
        { title: 'a lazy brown dog sleeps', tag: 'animal', year: 1999 },
        { index: { _index: 'books', _id: '3' } },
        { title: 'quiet rivers', tag: 'nature', year: 2010 },
      ],
    });
    await es().indices.putAlias({
      index: 'books',
      name: 'nature-books',
      filter: { term: { tag: 'nature' } },
    });
  });

  const queries: [string, Record<string, unknown>][] = [
    ['match', { match: { title: 'brown fox' } }],
    ['term', { term: { tag: 'animal' } }],
    [
      'bool',
      {
        bool: {
          must: [{ match: { title: 'brown' } }],
          should: [{ match: { title: 'quick' } }],
          filter: [{ range: { year: { gte: 2000 } } }],
        },
      },
    ],
    [
      'dis_max',
      {
        dis_max: { queries: [{ match: { title: 'fox' } }, { match: { title: 'quick' } }], tie_breaker: 0.3 },
      },
    ],
  ];

  it.each(queries)('gives the explanation _search gives the same document (%s)', async (_name, query) => {
    const search = await es().search({ index: 'books', query, explain: true });
    const hit = search.hits.hits.find((h) => h._id === '1')!;
    expect(hit).toBeDefined();
    const explained = await es().explain({ index: 'books', id: '1', query });
    expect(explained).toEqual({ _index: 'books', _id: '1', matched: true, explanation: hit._explanation });
    expect(explained.explanation?.value).toBe(hit._score);
  });

  it('answers matched:false with Lucene no-match explanations for a document the query misses', async () => {
    expect(await es().explain({ index: 'books', id: '3', query: { match: { title: 'fox' } } })).toEqual({
      _index: 'books',
      _id: '3',
      matched: false,
      explanation: { value: 0, description: 'no matching term', details: [] },
    });
    const bool = await es().explain({
      index: 'books',
      id: '3',
      query: { bool: { must: [{ term: { tag: 'animal' } }] } },
    });
    expect(bool.explanation).toEqual({
      value: 0,
      description: 'Failure to meet condition(s) of required/prohibited clause(s)',
      details: [],
    });
  });

  it('answers 404 with matched:false for a missing document, index_not_found for a missing index', async () => {
    const res = await call(server.url, 'POST', '/books/_explain/404', { query: { match_all: {} } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ _index: 'books', _id: '404', matched: false });
    const missing = await call(server.url, 'POST', '/nope/_explain/1', { query: { match_all: {} } });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: { type: 'index_not_found_exception', reason: 'no such index [nope]' },
    });
  });

  it('takes the query from q, and returns the source under get when asked', async () => {
    const byQ = await call(server.url, 'GET', '/books/_explain/1?q=tag:animal');
    expect(byQ.status).toBe(200);
    expect(byQ.json).toMatchObject({ matched: true });
    const withSource = await es().explain({
      index: 'books',
      id: '2',
      query: { match_all: {} },
      _source_includes: 'tag',
    });
    expect(withSource.get).toEqual({ _seq_no: 1, _primary_term: 1, found: true, _source: { tag: 'animal' } });
    const all = await call(server.url, 'POST', '/books/_explain/2?_source=true', {
      query: { match_all: {} },
    });
    expect((all.json as { get: { _source: unknown } }).get._source).toEqual({
      title: 'a lazy brown dog sleeps',
      tag: 'animal',
      year: 1999,
    });
    const none = await call(server.url, 'POST', '/books/_explain/2?_source=false', {
      query: { match_all: {} },
    });
    expect((none.json as Record<string, unknown>).get).toBeUndefined();
    const plain = await es().explain({ index: 'books', id: '2', query: { match_all: {} } });
    expect(plain.get).toBeUndefined();
  });

  it('applies the filter of the alias the document is reached through', async () => {
    expect((await es().explain({ index: 'nature-books', id: '3', query: { match_all: {} } })).matched).toBe(
      true,
    );
    const filtered = await es().explain({
      index: 'nature-books',
      id: '1',
      query: { match: { title: 'fox' } },
    });
    expect(filtered.matched).toBe(false);
  });

  it('refuses a request without a query, other body keys, unknown parameters and closed indices', async () => {
    const noQuery = await call(server.url, 'GET', '/books/_explain/1');
    expect(noQuery.status).toBe(400);
    expect(noQuery.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: query is missing;',
      },
    });
    const extra = await call(server.url, 'POST', '/books/_explain/1', { query: { match_all: {} }, size: 1 });
    expect(extra.status).toBe(400);
    expect(extra.json).toMatchObject({
      error: { type: 'parsing_exception', reason: 'request does not support [size]' },
    });
    const badQuery = await call(server.url, 'POST', '/books/_explain/1', { query: { nope: {} } });
    expect(badQuery.status).toBe(400);
    expect((await call(server.url, 'GET', '/books/_explain/1?q=x&size=1')).status).toBe(400);
    await es().indices.create({ index: 'shut' });
    await es().index({ index: 'shut', id: '1', document: { a: 1 } });
    await es().indices.close({ index: 'shut' });
    expect(await failure(es().explain({ index: 'shut', id: '1', query: { match_all: {} } }))).toMatchObject({
      status: 400,
      body: { error: { type: 'index_closed_exception', reason: 'closed' } },
    });
  });
});
