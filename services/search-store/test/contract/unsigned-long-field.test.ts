import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

/**
 * The `unsigned_long` field type (ES reference "Unsigned long field type", YAML tests
 * x-pack unsigned_long/10_basic): [0, 2^64-1] exact in term/range queries, sort values, terms keys and
 * `fields` (checked on the response text: a JS number cannot hold them), doubles in metrics.
 */
describe('unsigned_long fields', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'counters';
  const search = async (body: string) => {
    const result = await call(server.url, 'POST', `/${index}/_search`, body);
    expect(result.status).toBe(200);
    return result.text;
  };
  const ids = async (query: string) =>
    (
      JSON.parse(await search(`{"query":${query},"size":20}`)) as { hits: { hits: { _id: string }[] } }
    ).hits.hits
      .map((h) => h._id)
      .sort();

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      mappings: {
        properties: {
          ul: { type: 'unsigned_long' },
          loose: { type: 'unsigned_long', ignore_malformed: true },
        },
      },
    });
    const lines = [
      ['1', '0'],
      ['2', '9223372036854775807'],
      ['3', '9223372036854775808'],
      ['4', '18446744073709551614'],
      ['5', '18446744073709551615'],
      ['6', '"12345678901234567890"'],
      ['7', '[10, 10, 9007199254740993]'],
    ].flatMap(([id, v]) => [`{"index":{"_id":"${id}"}}`, `{"ul":${v}}`]);
    const bulk = await call(server.url, 'POST', `/${index}/_bulk?refresh=true`, `${lines.join('\n')}\n`, {
      'content-type': 'application/x-ndjson',
    });
    expect((bulk.json as { errors: boolean }).errors).toBe(false);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('finds exact values with term and terms, numbers or strings; out-of-range terms match nothing', async () => {
    expect(await ids('{"term":{"ul":0}}')).toEqual(['1']);
    expect(await ids('{"term":{"ul":"18446744073709551615"}}')).toEqual(['5']);
    expect(await ids('{"term":{"ul":"18446744073709551614"}}')).toEqual(['4']);
    expect(await ids('{"term":{"ul":"9007199254740993"}}')).toEqual(['7']);
    expect(await ids('{"term":{"ul":"9007199254740992"}}')).toEqual([]);
    expect(await ids('{"term":{"ul":"18446744073709551616"}}')).toEqual([]);
    expect(await ids('{"term":{"ul":-1}}')).toEqual([]);
    expect(await ids('{"terms":{"ul":[0,"9223372036854775808","12345678901234567890"]}}')).toEqual([
      '1',
      '3',
      '6',
    ]);
    expect(await ids('{"exists":{"field":"ul"}}')).toEqual(['1', '2', '3', '4', '5', '6', '7']);
  });

  it('ranges exactly, rounding fractional bounds inwards as ES', async () => {
    expect(await ids('{"range":{"ul":{"gte":0}}}')).toHaveLength(7);
    expect(await ids('{"range":{"ul":{"gte":0.5}}}')).toEqual(['2', '3', '4', '5', '6', '7']);
    expect(await ids('{"range":{"ul":{"lte":"18446744073709551614.5"}}}')).toEqual([
      '1',
      '2',
      '3',
      '4',
      '6',
      '7',
    ]);
    expect(await ids('{"range":{"ul":{"gt":"9223372036854775807","lt":"18446744073709551614"}}}')).toEqual([
      '3',
      '6',
    ]);
    expect(await ids('{"range":{"ul":{"gt":"18446744073709551615"}}}')).toEqual([]);
    expect(await ids('{"range":{"ul":{"lt":0}}}')).toEqual([]);
  });

  it('sorts exactly and prints sort values as integers, search_after included', async () => {
    const asc = await search('{"sort":[{"ul":"asc"}],"query":{"ids":{"values":["1","2","3","4","5"]}}}');
    const sorts = [...asc.matchAll(/"_id":"(\d)".*?"sort":\[([^\]]*)\]/g)].map((m) => [m[1], m[2]]);
    expect(sorts).toEqual([
      ['1', '0'],
      ['2', '9223372036854775807'],
      ['3', '9223372036854775808'],
      ['4', '18446744073709551614'],
      ['5', '18446744073709551615'],
    ]);
    const desc = await search('{"sort":[{"ul":"desc"}],"size":1}');
    expect(desc).toContain('"sort":[18446744073709551615]');
    const after = await search(
      '{"sort":[{"ul":"asc"}],"search_after":["9223372036854775808"],"query":{"ids":{"values":["1","2","3","4","5"]}}}',
    );
    expect([...after.matchAll(/"_id":"(\d)"/g)].map((m) => m[1])).toEqual(['4', '5']);
  });

  it('keys terms buckets by the exact integers; metrics are doubles', async () => {
    const text = await search(
      '{"size":0,"aggs":{"t":{"terms":{"field":"ul","order":{"_key":"asc"},"size":20}}}}',
    );
    expect(text).toContain(
      '"buckets":[{"key":0,"doc_count":1},{"key":10,"doc_count":1},{"key":9007199254740993,"doc_count":1},{"key":9223372036854775807,"doc_count":1},{"key":9223372036854775808,"doc_count":1},{"key":12345678901234567890,"doc_count":1},{"key":18446744073709551614,"doc_count":1},{"key":18446744073709551615,"doc_count":1}]',
    );
    const metrics = await es().search({
      index,
      size: 0,
      query: { ids: { values: ['1', '7'] } },
      aggs: {
        mn: { min: { field: 'ul' } },
        mx: { max: { field: 'ul' } },
        s: { sum: { field: 'ul' } },
        n: { value_count: { field: 'ul' } },
      },
    });
    expect(metrics.aggregations).toEqual({
      mn: { value: 0 },
      mx: { value: 9007199254740992 },
      s: { value: 9007199254741012 },
      n: { value: 4 },
    });
    // As doubles: 9223372036854775807 is 2^63, in the second bucket as in ES's own test.
    const histogram = await es().search({
      index,
      size: 0,
      aggs: { h: { histogram: { field: 'ul', interval: 2 ** 63 } } },
    });
    expect(
      (histogram.aggregations?.h as { buckets: { doc_count: number }[] }).buckets.map((b) => b.doc_count),
    ).toEqual([2, 3, 2]);
  });

  it('returns `fields` as the exact integers and `_source` as sent', async () => {
    const text = await search('{"query":{"ids":{"values":["5","6","7"]}},"fields":["ul"],"sort":["_doc"]}');
    expect(text).toContain('"_source":{"ul":18446744073709551615},"fields":{"ul":[18446744073709551615]}');
    expect(text).toContain('"_source":{"ul":"12345678901234567890"},"fields":{"ul":[12345678901234567890]}');
    expect(text).toContain('"fields":{"ul":[10,10,9007199254740993]}');
  });

  it.each([
    ['-1', "'-1'", 'Value [-1] is out of range for unsigned long.'],
    [
      '18446744073709551616',
      "'18446744073709551616'",
      'Value [18446744073709551616] is out of range for unsigned long',
    ],
    ['1.5', "'1.5'", 'Value "1.5" has a decimal part'],
    ['"-5"', "'-5'", 'Value [-5] is out of range for unsigned long'],
    ['"abc"', "'abc'", 'For input string: "abc"'],
  ])('refuses %s with ES document_parsing_exception', async (value, shown, reason) => {
    const result = await call(server.url, 'PUT', `/${index}/_doc/bad`, `{"ul":${value}}`);
    const outer = `[1:7] failed to parse field [ul] of type [unsigned_long] in document with id 'bad'. Preview of field's value: ${shown}`;
    expect(result.status).toBe(400);
    expect(result.json).toEqual({
      error: {
        root_cause: [{ type: 'document_parsing_exception', reason: outer }],
        type: 'document_parsing_exception',
        reason: outer,
        caused_by: { type: 'illegal_argument_exception', reason },
      },
      status: 400,
    });
    expect(await es().exists({ index, id: 'bad' })).toBe(false);
  });

  it('keeps a malformed value out of the index under ignore_malformed', async () => {
    await es().index({ index, id: 'm', document: { loose: [-3, 7] }, refresh: true });
    expect(await ids('{"exists":{"field":"loose"}}')).toEqual(['m']);
    expect(await ids('{"range":{"loose":{"lte":7}}}')).toEqual(['m']);
    expect(await ids('{"term":{"loose":7}}')).toEqual(['m']);
  });

  it('answers a query value that is no number with ES 400', async () => {
    const result = await call(server.url, 'POST', `/${index}/_search`, '{"query":{"term":{"ul":"abc"}}}');
    expect(result.status).toBe(400);
    const shard = {
      type: 'query_shard_exception',
      reason: 'failed to create query: For input string: "abc"',
      caused_by: { type: 'number_format_exception', reason: 'For input string: "abc"' },
    };
    expect(result.json).toMatchObject({
      error: { type: 'search_phase_execution_exception', root_cause: [shard] },
      status: 400,
    });
    const refused = await failure(es().search({ index, query: { range: { ul: { gte: 'x' } } } }));
    expect(refused.status).toBe(400);
  });
});
