import { errors } from 'es8';
import { startSearchFixture, type SearchFixture } from './search-fixture';

let fx: SearchFixture;
beforeAll(async () => (fx = await startSearchFixture()));
afterAll(() => fx.stop());

async function ids(body: Record<string, unknown>, index = fx.articles.name): Promise<string[]> {
  const res = await fx.es.search({ index, ...body });
  return res.hits.hits.map((h) => h._id!);
}

async function rawSearch(
  path: string,
  body: string,
  method = 'POST',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${fx.store.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('queries', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['match_all', { match_all: {} }, ['1', '2', '3', '4']],
    ['match_none', { match_none: {} }, []],
    ['ids', { ids: { values: ['3', '1', 'nope'] } }, ['1', '3']],
    ['exists on a text field', { exists: { field: 'title' } }, ['1', '2', '3']],
    ['exists on a multi-field', { exists: { field: 'title.keyword' } }, ['1', '2', '3']],
    ['exists on an integer field', { exists: { field: 'views' } }, ['1', '2', '3']],
    ['exists on a boolean field', { exists: { field: 'draft' } }, ['1', '2']],
    ['exists on a date field', { exists: { field: 'published' } }, ['1', '2', '3']],
    ['exists on a keyword field with an empty array', { exists: { field: 'tags' } }, ['1', '2', '3']],
    ['prefix on keyword', { prefix: { tags: 'an' } }, ['1', '2']],
    ['prefix on text terms', { prefix: { body: 'sle' } }, ['2']],
    ['wildcard', { wildcard: { tags: { value: 'f*m' } } }, ['3']],
    ['wildcard with ?', { wildcard: { 'title.keyword': 'quick f?x' } }, ['1']],
    ['term on boolean', { term: { draft: false } }, ['1']],
    ['term on integer', { term: { views: 20 } }, ['3']],
    ['term on text is not analyzed', { term: { title: 'Quick' } }, []],
    ['terms on _id', { terms: { _id: ['2', '4'] } }, ['2', '4']],
    ['range on numbers', { range: { views: { gt: 5, lte: 20 } } }, ['1', '3']],
    ['range on dates', { range: { published: { gte: '2024-01-01', lt: '2024-02-01' } } }, ['1']],
    [
      'range on dates with a format',
      { range: { published: { gte: '01/02/2024', format: 'dd/MM/yyyy' } } },
      ['2'],
    ],
    [
      'range on dates with date math',
      { range: { published: { gte: '2024-01-10||/M', lte: '2024-01-10||+1M/d' } } },
      ['1', '2'],
    ],
    ['range up to now', { range: { published: { lt: 'now-1d/d' } } }, ['1', '2', '3']],
    ['match on a keyword field', { match: { tags: 'animal' } }, ['1', '2']],
    ['match on a number', { match: { views: '10' } }, ['1']],
    ['match_phrase with the words in order only', { match_phrase: { title: 'brown dog' } }, ['2']],
    ['dis_max', { dis_max: { queries: [{ term: { tags: 'farm' } }, { term: { views: 10 } }] } }, ['1', '3']],
  ])('%s', async (_, query, expected) => {
    expect((await ids({ query, size: 20 })).sort()).toEqual(expected);
  });

  it('answers 400 parsing_exception for an unknown query, with line and col', async () => {
    const { status, body } = await rawSearch(`/${fx.articles.name}/_search`, '{"query":{"nope":{}}}');
    expect(status).toBe(400);
    expect(body).toEqual({
      error: {
        root_cause: [{ type: 'parsing_exception', reason: 'unknown query [nope]', line: 1, col: 18 }],
        type: 'parsing_exception',
        reason: 'unknown query [nope]',
        line: 1,
        col: 18,
        caused_by: { type: 'named_object_not_found_exception', reason: '[1:18] unknown field [nope]' },
      },
      status: 400,
    });
  });

  it('answers 400 x_content_parse_exception for malformed JSON and x_content_e_o_f_exception for a truncated body', async () => {
    expect((await rawSearch(`/${fx.articles.name}/_search`, '{"query": nope}')).body).toMatchObject({
      error: { type: 'x_content_parse_exception' },
      status: 400,
    });
    expect(
      (await rawSearch(`/${fx.articles.name}/_search`, '{"query": {"match_all": {}')).body,
    ).toMatchObject({
      error: { type: 'x_content_e_o_f_exception' },
      status: 400,
    });
  });

  it('answers hostile bodies with a clean 400: deep nesting, too many terms, LIKE metacharacters taken literally', async () => {
    const deep = '{"query":' + '{"bool":{"must":['.repeat(5000) + ']}}'.repeat(5000) + '}';
    const nested = await rawSearch(`/${fx.articles.name}/_search`, deep);
    expect(nested.status).toBe(400);
    const many = await rawSearch(
      `/${fx.articles.name}/_search`,
      JSON.stringify({ query: { terms: { tags: Array.from({ length: 70000 }, (_, i) => `t${i}`) } } }),
    );
    expect(many.status).toBe(400);
    expect(many.body).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [{ type: 'illegal_argument_exception', reason: expect.stringContaining('[70000]') }],
      },
    });
    expect((await ids({ query: { wildcard: { tags: '%' } } })).sort()).toEqual([]);
    expect((await ids({ query: { prefix: { tags: '_' } } })).sort()).toEqual([]);
  });

  it('answers 400 search_phase_execution_exception for a date it cannot parse', async () => {
    const error = await fx.es
      .search({ index: fx.articles.name, query: { range: { published: { gte: 'yesterday' } } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.ResponseError);
    expect((error as errors.ResponseError).statusCode).toBe(400);
    expect((error as errors.ResponseError).body).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        reason: 'all shards failed',
        root_cause: [
          {
            type: 'parse_exception',
            reason: expect.stringContaining('failed to parse date field [yesterday]'),
          },
        ],
      },
    });
  });
});

describe('paging, totals and scores', () => {
  it('pages with from/size, defaults to 10, and reports the total and max_score over all matches', async () => {
    const all = await fx.es.search({ index: fx.articles.name, query: { match: { body: 'quick fox' } } });
    const page = await fx.es.search({
      index: fx.articles.name,
      query: { match: { body: 'quick fox' } },
      from: 1,
      size: 1,
    });
    expect(page.hits.hits.map((h) => h._id)).toEqual([all.hits.hits[1]!._id]);
    expect(page.hits.total).toEqual({ value: 3, relation: 'eq' });
    expect(page.hits.max_score).toBe(all.hits.hits[0]!._score);
  });

  it('rejects from + size over 10000 with the Result window is too large root cause', async () => {
    const error = (await fx.es
      .search({ index: fx.articles.name, from: 9999, size: 2 })
      .catch((e: unknown) => e)) as errors.ResponseError;
    expect(error.statusCode).toBe(400);
    expect(error.body).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [
          {
            type: 'illegal_argument_exception',
            reason: expect.stringMatching(
              /^Result window is too large, from \+ size must be less than or equal to: \[10000\] but was \[10001\]/,
            ),
          },
        ],
      },
      status: 400,
    });
  });

  it('rejects a negative size with action_request_validation_exception', async () => {
    const { status, body } = await rawSearch(`/${fx.articles.name}/_search`, '{"size": -1}');
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { type: 'action_request_validation_exception' } });
  });

  it('limits the total with track_total_hits, omits it with false and gives an int with rest_total_hits_as_int', async () => {
    expect((await fx.es.search({ index: fx.articles.name, track_total_hits: 2 })).hits.total).toEqual({
      value: 2,
      relation: 'gte',
    });
    expect((await fx.es.search({ index: fx.articles.name, track_total_hits: true })).hits.total).toEqual({
      value: 4,
      relation: 'eq',
    });
    expect(
      (await fx.es.search({ index: fx.articles.name, track_total_hits: false })).hits,
    ).not.toHaveProperty('total');
    const res = await fetch(`${fx.store.url}/${fx.articles.name}/_search?rest_total_hits_as_int=true&size=0`);
    expect(((await res.json()) as { hits: unknown }).hits).toEqual({ total: 4, max_score: null, hits: [] });
  });

  it('counts with size 0 only as far as track_total_hits reports, max_score null, min_score applied', async () => {
    const total = async (body: Record<string, unknown>) =>
      (await fx.es.search({ index: fx.articles.name, size: 0, ...body })).hits;
    expect(await total({ track_total_hits: 3 })).toEqual({
      total: { value: 3, relation: 'gte' },
      max_score: null,
      hits: [],
    });
    expect(await total({ track_total_hits: 4 })).toEqual({
      total: { value: 4, relation: 'eq' },
      max_score: null,
      hits: [],
    });
    expect(await total({})).toEqual({ total: { value: 4, relation: 'eq' }, max_score: null, hits: [] });
    expect(await total({ track_total_hits: false })).toEqual({ max_score: null, hits: [] });
    expect((await total({ query: { match: { body: 'fox' } }, track_total_hits: true })).total).toEqual(
      (await fx.es.search({ index: fx.articles.name, query: { match: { body: 'fox' } } })).hits.total,
    );
    const scored = await fx.es.search({ index: fx.articles.name, query: { match: { body: 'fox quick' } } });
    const threshold = scored.hits.hits[0]!._score!;
    expect((await total({ query: { match: { body: 'fox quick' } }, min_score: threshold })).total).toEqual({
      value: scored.hits.hits.filter((h) => h._score! >= threshold).length,
      relation: 'eq',
    });
  });

  it('keeps index order for equal scores', async () => {
    expect(await ids({ query: { match_all: {} } })).toEqual(['1', '2', '3', '4']);
  });
});

describe('sort and search_after', () => {
  it('sorts by a numeric field with missing values last and returns sort values; scores are null', async () => {
    const res = await fx.es.search({ index: fx.articles.name, sort: [{ views: 'desc' }] });
    expect(res.hits.hits.map((h) => [h._id, h._score, h.sort])).toEqual([
      ['3', null, [20]],
      ['1', null, [10]],
      ['2', null, [5]],
      ['4', null, [null]],
    ]);
    expect(res.hits.max_score).toBeNull();
  });

  it('sorts by several keys, keyword and date, ascending', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      sort: [{ tags: 'asc' }, { published: { order: 'desc' } }],
    });
    expect(res.hits.hits.map((h) => [h._id, h.sort])).toEqual([
      ['2', ['animal', Date.UTC(2024, 1, 1, 10)]],
      ['1', ['animal', Date.UTC(2024, 0, 10)]],
      ['3', ['farm', Date.UTC(2023, 11, 31)]],
      ['4', [null, null]],
    ]);
  });

  it('sorts by _score and _doc and puts missing values first on request', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { match: { body: 'fox' } },
      sort: ['_score'],
    });
    expect(res.hits.hits.map((h) => h._id)).toEqual(['4', '1']);
    expect(res.hits.hits[0]!.sort).toEqual([res.hits.hits[0]!._score]);
    expect(await ids({ sort: [{ _doc: 'desc' }] })).toEqual(['4', '3', '2', '1']);
    expect(await ids({ sort: [{ views: { order: 'asc', missing: '_first' } }] })).toEqual([
      '4',
      '2',
      '1',
      '3',
    ]);
    const custom = await fx.es.search({
      index: fx.articles.name,
      sort: [{ views: { order: 'asc', missing: 7 } }],
    });
    expect(custom.hits.hits.map((h) => [h._id, h.sort])).toEqual([
      ['2', [5]],
      ['4', [7]],
      ['1', [10]],
      ['3', [20]],
    ]);
  });

  it('continues after the last hit with search_after', async () => {
    expect(await ids({ sort: [{ views: 'desc' }], search_after: [10] })).toEqual(['2', '4']);
    expect(await ids({ sort: [{ tags: 'asc' }, { views: 'asc' }], search_after: ['animal', 5] })).toEqual([
      '1',
      '3',
      '4',
    ]);
  });

  it('refuses to sort on a text field and on an unmapped field', async () => {
    const text = (await fx.es
      .search({ index: fx.articles.name, sort: ['body'] })
      .catch((e: unknown) => e)) as errors.ResponseError;
    expect(text.statusCode).toBe(400);
    expect(text.body).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [
          {
            type: 'illegal_argument_exception',
            reason: expect.stringMatching(/^Text fields are not optimised/),
          },
        ],
      },
    });
    const unmapped = (await fx.es
      .search({ index: fx.articles.name, sort: ['nope'] })
      .catch((e: unknown) => e)) as errors.ResponseError;
    expect(unmapped.body).toMatchObject({
      error: {
        root_cause: [
          { type: 'query_shard_exception', reason: 'No mapping found for [nope] in order to sort on' },
        ],
      },
    });
    expect(await ids({ sort: [{ nope: { unmapped_type: 'long' } }] })).toEqual(['1', '2', '3', '4']);
  });
});

describe('_source, fields, highlight, explain', () => {
  it('returns an unfiltered _source byte for byte as indexed', async () => {
    const index = `raw-${fx.suffix}-x`;
    const body = '{ "b" : 1, "a":[1.50, 2],"10":true }';
    await fetch(`${fx.store.url}/${index}/_doc/1?refresh=true`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const res = await fetch(`${fx.store.url}/${index}/_search`);
    expect(await res.text()).toContain(`"_source":${body}`);
  });

  it('refuses to search an index with index.blocks.read', async () => {
    const index = `blocked-${fx.suffix}-x`;
    await fx.es.indices.create({ index });
    await fx.es.indices.putSettings({ index, settings: { 'index.blocks.read': true } });
    const error = (await fx.es.search({ index }).catch((e: unknown) => e)) as errors.ResponseError;
    expect(error.statusCode).toBe(403);
    expect(error.body).toMatchObject({
      error: {
        type: 'cluster_block_exception',
        reason: `index [${index}] blocked by: [FORBIDDEN/7/index read (api)];`,
      },
    });
  });

  it('filters _source by list, false, includes/excludes and wildcards', async () => {
    const first = async (source: unknown) =>
      (
        await fx.es.search({
          index: fx.articles.name,
          query: { ids: { values: ['1'] } },
          _source: source as never,
        })
      ).hits.hits[0]!;
    expect((await first(['title', 'view*']))._source).toEqual({ title: 'quick fox', views: 10 });
    expect(await first(false)).not.toHaveProperty('_source');
    expect((await first({ includes: ['*'], excludes: ['body', 't*'] }))._source).toEqual({
      views: 10,
      published: '2024-01-10',
      draft: false,
    });
  });

  it('returns fields as arrays, dates formatted, multi-fields from their parent', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { ids: { values: ['1'] } },
      fields: ['title*', 'published', 'tags', 'views'],
      _source: false,
    });
    expect(res.hits.hits[0]!.fields).toEqual({
      title: ['quick fox'],
      'title.keyword': ['quick fox'],
      published: ['2024-01-10T00:00:00.000Z'],
      tags: ['animal', 'fast'],
      views: [10],
    });
  });

  it('highlights the matched terms with <em> tags', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { bool: { should: [{ match: { body: 'quick' } }, { match_phrase: { title: 'red barn' } }] } },
      highlight: { fields: { body: {}, title: {} } },
    });
    const byId = Object.fromEntries(res.hits.hits.map((h) => [h._id, h.highlight]));
    expect(byId['1']).toEqual({ body: ['the <em>quick</em> brown fox jumps over the lazy dog'] });
    expect(byId['3']).toEqual({
      body: ['red barn on the hill with a <em>quick</em> view'],
      title: ['the big <em>red</em> <em>barn</em>'],
    });
  });

  it('explains a BM25 score as Lucene does', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { match: { title: 'fox' } },
      explain: true,
    });
    const explanation = res.hits.hits[0]!._explanation!;
    expect(explanation.value).toBe(1.135697);
    expect(explanation.description).toMatch(
      /^weight\(title:fox in \d+\) \[PerFieldSimilarity\], result of:$/,
    );
    const [score] = explanation.details!;
    expect(score!.description).toBe('score(freq=1.0), computed as boost * idf * tf from:');
    expect(score!.details!.map((d) => [d.value, d.description.split(',')[0]])).toEqual([
      [2.2, 'boost'],
      [0.98082924, 'idf'],
      [0.5263158, 'tf'],
    ]);
  });
});

describe('explain for phrases', () => {
  it('breaks a phrase score into phrase frequency and the idf summed over its terms', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { match_phrase: { body: 'quick brown' } },
      explain: true,
    });
    const explanation = res.hits.hits[0]!._explanation!;
    expect(explanation.value).toBe(res.hits.hits[0]!._score);
    expect(explanation.description).toMatch(
      /^weight\(body:"quick brown" in \d+\) \[PerFieldSimilarity\], result of:$/,
    );
    const [score] = explanation.details!;
    expect(score!.description).toBe('score(freq=1.0), computed as boost * idf * tf from:');
    const idf = score!.details![1]!;
    expect(idf.description).toBe('idf, sum of:');
    expect(idf.details!.map((d) => d.details![0]!.value)).toEqual([2, 1]);
  });
});

describe('index expressions and _count', () => {
  it('searches comma lists, wildcards and aliases; an alias filter applies', async () => {
    const { suffix } = fx;
    const hits = async (index: string) =>
      (await fx.es.search({ index, query: { match: { title: 'fox' } } })).hits.hits
        .map((h) => `${h._index}/${h._id}`)
        .sort();
    expect(await hits(`${fx.articles.name},${fx.notes.name}`)).toEqual([
      `${fx.articles.name}/1`,
      `${fx.notes.name}/n1`,
    ]);
    expect(await hits(`*-${suffix}`)).toEqual([`${fx.articles.name}/1`, `${fx.notes.name}/n1`]);
    expect(await hits(`arts-${suffix}`)).toEqual([`${fx.articles.name}/1`]);
    expect((await fx.es.search({ index: `animals-${suffix}` })).hits.hits.map((h) => h._id)).toEqual([
      '1',
      '2',
    ]);
    expect((await fx.es.search({ index: `nothing-${suffix}-*` })).hits).toEqual({
      total: { value: 0, relation: 'eq' },
      max_score: null,
      hits: [],
    });
  });

  it('filters on _index across several indices', async () => {
    const res = await fx.es.search({
      index: `${fx.articles.name},${fx.notes.name}`,
      query: { bool: { must: { match: { title: 'fox' } }, filter: { term: { _index: fx.notes.name } } } },
    });
    expect(res.hits.hits.map((h) => `${h._index}/${h._id}`)).toEqual([`${fx.notes.name}/n1`]);
  });

  it('answers 404 index_not_found_exception for a missing concrete index', async () => {
    const error = (await fx.es
      .search({ index: 'no-such-index' })
      .catch((e: unknown) => e)) as errors.ResponseError;
    expect(error.statusCode).toBe(404);
    expect(error.body).toEqual({
      error: {
        root_cause: [
          {
            type: 'index_not_found_exception',
            reason: 'no such index [no-such-index]',
            'resource.type': 'index_or_alias',
            'resource.id': 'no-such-index',
            index_uuid: '_na_',
            index: 'no-such-index',
          },
        ],
        type: 'index_not_found_exception',
        reason: 'no such index [no-such-index]',
        'resource.type': 'index_or_alias',
        'resource.id': 'no-such-index',
        index_uuid: '_na_',
        index: 'no-such-index',
      },
      status: 404,
    });
  });

  it('counts matches and rejects search-only keys in a count body', async () => {
    expect(await fx.es.count({ index: fx.articles.name, query: { term: { tags: 'animal' } } })).toEqual({
      count: 2,
      _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
    });
    expect((await fx.es.count({ index: fx.articles.name })).count).toBe(4);
    expect((await fx.es.count({ index: fx.articles.name, q: 'tags:farm' })).count).toBe(1);
    const everywhere = await fx.es.count({ index: `*-${fx.suffix}`, query: { match: { title: 'fox' } } });
    expect(everywhere.count).toBe(2);
    const { status, body } = await rawSearch(`/${fx.articles.name}/_count`, '{"size": 1}');
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: { type: 'parsing_exception', reason: 'request does not support [size]' },
    });
  });

  it('refuses search features that would change the answer instead of ignoring them', async () => {
    const { status, body } = await rawSearch(
      `/${fx.articles.name}/_search`,
      '{"rank": {"rrf": {}}, "sub_searches": [{"query": {"match": {"title": "fox"}}}]}',
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: '[rank] is not supported by search-store' },
    });
  });

  it('answers docvalue_fields like fields and filters hits with post_filter', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { term: { tags: 'animal' } },
      post_filter: { range: { views: { gte: 10 } } },
      docvalue_fields: ['views', 'published'],
      _source: false,
    });
    expect(res.hits.hits.map((h) => [h._id, h.fields])).toEqual([
      ['1', { views: [10], published: ['2024-01-10T00:00:00.000Z'] }],
    ]);
  });

  it('answers aggregations over the matched documents', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      size: 0,
      query: { match: { body: 'fox quick' } },
      aggs: {
        tags: { terms: { field: 'tags' } },
        views: { max: { field: 'views' } },
        foxy: { filter: { match: { title: 'fox' } } },
      },
    });
    expect(res.aggregations).toEqual({
      tags: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'animal', doc_count: 1 },
          { key: 'farm', doc_count: 1 },
          { key: 'fast', doc_count: 1 },
        ],
      },
      views: { value: 20 },
      foxy: { doc_count: 1 },
    });
  });

  it('returns runtime fields in `fields` through the script language', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { ids: { values: ['1'] } },
      runtime_mappings: {
        double_views: { type: 'long', script: { source: "emit(doc['views'].value * 2)" } },
      },
      fields: ['double_views'],
      _source: false,
    });
    expect(res.hits.hits[0]!.fields).toEqual({ double_views: [20] });
  });

  it('aggregates a runtime field', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      size: 0,
      runtime_mappings: {
        popular: {
          type: 'keyword',
          script: { source: "emit(doc['views'].size() > 0 && doc['views'].value >= 10 ? 'yes' : 'no')" },
        },
      },
      aggs: { p: { terms: { field: 'popular' } } },
    });
    expect(res.aggregations).toEqual({
      p: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'no', doc_count: 2 },
          { key: 'yes', doc_count: 2 },
        ],
      },
    });
  });
});

describe('_analyze', () => {
  it('analyzes with the standard analyzer by default and returns ES token shapes', async () => {
    const res = await fx.es.indices.analyze({ text: "The dog's 3.14 BONES" });
    expect(res.tokens).toEqual([
      { token: 'the', start_offset: 0, end_offset: 3, type: '<ALPHANUM>', position: 0 },
      { token: "dog's", start_offset: 4, end_offset: 9, type: '<ALPHANUM>', position: 1 },
      { token: '3.14', start_offset: 10, end_offset: 14, type: '<NUM>', position: 2 },
      { token: 'bones', start_offset: 15, end_offset: 20, type: '<ALPHANUM>', position: 3 },
    ]);
  });

  it('takes an analyzer, a tokenizer with filters, a field of an index, and an array of texts', async () => {
    expect(
      (await fx.es.indices.analyze({ analyzer: 'whitespace', text: 'A-b C' })).tokens!.map((t) => t.token),
    ).toEqual(['A-b', 'C']);
    const custom = await fx.es.indices.analyze({
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', { type: 'stop', stopwords: ['the'] }],
      text: 'The Café',
    });
    expect(custom.tokens!.map((t) => [t.token, t.position])).toEqual([['cafe', 1]]);
    const field = await fx.es.indices.analyze({ index: fx.articles.name, field: 'tags', text: 'Big Farm' });
    expect(field.tokens!.map((t) => t.token)).toEqual(['Big Farm']);
    const many = await fx.es.indices.analyze({ text: ['one two', 'three'] });
    expect(many.tokens!.map((t) => [t.token, t.position, t.start_offset])).toEqual([
      ['one', 0, 0],
      ['two', 1, 4],
      ['three', 102, 8],
    ]);
  });

  it('rejects an unknown analyzer and a missing text', async () => {
    const error = (await fx.es.indices
      .analyze({ analyzer: 'nope', text: 'x' })
      .catch((e: unknown) => e)) as errors.ResponseError;
    expect(error.statusCode).toBe(400);
    expect(error.body).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'failed to find global analyzer [nope]' },
    });
    const missing = (await fx.es.indices
      .analyze({ analyzer: 'standard' })
      .catch((e: unknown) => e)) as errors.ResponseError;
    expect(missing.body).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: text is missing;',
      },
    });
  });
});
