import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

/**
 * The `date_nanos` field type (ES reference "Date nanoseconds field type", YAML test
 * search/240_date_nanos): nanoseconds kept exactly, range and term to the nanosecond, sort values in
 * nanoseconds (checked on the response text), `fields` with up to nine fraction digits, and date
 * aggregations on millisecond keys.
 */
describe('date_nanos fields', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'events';
  const search = async (body: unknown) => {
    const result = await call(server.url, 'POST', `/${index}/_search`, body);
    expect(result.status).toBe(200);
    return result;
  };
  const ids = async (query: unknown) =>
    ((await search({ query, size: 20 })).json as { hits: { hits: { _id: string }[] } }).hits.hits
      .map((h) => h._id)
      .sort();

  beforeAll(async () => {
    await es().indices.create({ index, mappings: { properties: { at: { type: 'date_nanos' } } } });
    await es().bulk({
      refresh: true,
      operations: [
        ['first', '2018-10-29T12:12:12.123456789Z'],
        ['second', '2018-10-29T12:12:12.987654321Z'],
        ['millis', '2018-10-29T12:12:12.123Z'],
        ['epoch', 1540857600000],
        ['day', '2018-10-30'],
      ].flatMap(([id, at]) => [{ index: { _index: index, _id: id } }, { at }]),
    });
  });

  it('sorts to the nanosecond and prints the sort values as nanoseconds', async () => {
    const asc = await search({
      sort: [{ at: 'asc' }],
      query: { ids: { values: ['first', 'second', 'millis'] } },
    });
    expect([...asc.text.matchAll(/"_id":"(\w+)".*?"sort":\[(\d+)\]/g)].map((m) => [m[1], m[2]])).toEqual([
      ['millis', '1540815132123000000'],
      ['first', '1540815132123456789'],
      ['second', '1540815132987654321'],
    ]);
    const after = await search({
      sort: [{ at: 'asc' }],
      search_after: ['1540815132123000000'],
      query: { ids: { values: ['first', 'second', 'millis'] } },
    });
    expect([...after.text.matchAll(/"_id":"(\w+)"/g)].map((m) => m[1])).toEqual(['first', 'second']);
  });

  it('ranges and terms to the nanosecond, rounding up to the last nanosecond', async () => {
    expect(await ids({ range: { at: { gt: '2018-10-29T12:12:12.123Z' } } })).toEqual([
      'day',
      'epoch',
      'first',
      'second',
    ]);
    expect(
      await ids({
        range: { at: { gt: '2018-10-29T12:12:12.123456788Z', lt: '2018-10-29T12:12:12.987654321Z' } },
      }),
    ).toEqual(['first']);
    expect(await ids({ range: { at: { lte: '2018-10-29T12:12:12.123456789Z' } } })).toEqual([
      'first',
      'millis',
    ]);
    expect(await ids({ range: { at: { lte: '2018-10-29||/d' } } })).toEqual(['first', 'millis', 'second']);
    expect(await ids({ range: { at: { gte: '2018-10-30', lt: '2018-10-31' } } })).toEqual(['day', 'epoch']);
    expect(await ids({ range: { at: { lt: '1969-01-01' } } })).toEqual([]);
    expect(await ids({ term: { at: '2018-10-29T12:12:12.987654321Z' } })).toEqual(['second']);
    expect(await ids({ terms: { at: ['2018-10-29T12:12:12.123Z', 1540857600000] } })).toEqual([
      'day',
      'epoch',
      'millis',
    ]);
  });

  it('returns `fields` with the nanoseconds as written', async () => {
    const result = await es().search({
      index,
      query: { match_all: {} },
      fields: ['at'],
      sort: [{ at: 'asc' }],
    });
    expect(result.hits.hits.map((h) => [h._id, h.fields?.at])).toEqual([
      ['millis', ['2018-10-29T12:12:12.123Z']],
      ['first', ['2018-10-29T12:12:12.123456789Z']],
      ['second', ['2018-10-29T12:12:12.987654321Z']],
      ['epoch', ['2018-10-30T00:00:00.000Z']],
      ['day', ['2018-10-30T00:00:00.000Z']],
    ]);
  });

  it('buckets date histograms on millisecond keys', async () => {
    const result = await es().search({
      index,
      size: 0,
      aggs: { d: { date_histogram: { field: 'at', calendar_interval: '1d' } }, mx: { max: { field: 'at' } } },
    });
    expect(result.aggregations).toEqual({
      d: {
        buckets: [
          { key_as_string: '2018-10-29T00:00:00.000Z', key: 1540771200000, doc_count: 3 },
          { key_as_string: '2018-10-30T00:00:00.000Z', key: 1540857600000, doc_count: 2 },
        ],
      },
      mx: { value: 1540857600000, value_as_string: '2018-10-30T00:00:00.000Z' },
    });
  });

  it.each([
    [
      '"1969-12-31T23:59:59Z"',
      'date[1969-12-31T23:59:59Z] is before the epoch in 1970 and cannot be stored in nanosecond resolution',
    ],
    [
      '"2262-04-11T23:47:16.854775808Z"',
      'date[2262-04-11T23:47:16.854775808Z] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution',
    ],
  ])('refuses %s, outside what a long of nanoseconds holds', async (value, reason) => {
    const result = await call(server.url, 'PUT', `/${index}/_doc/bad`, `{"at":${value}}`);
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      error: {
        type: 'document_parsing_exception',
        reason: `[1:7] failed to parse field [at] of type [date_nanos] in document with id 'bad'. Preview of field's value: '${JSON.parse(value) as string}'`,
        caused_by: { type: 'illegal_argument_exception', reason },
      },
    });
  });

  it('refuses a value no format reads', async () => {
    const result = await call(server.url, 'PUT', `/${index}/_doc/bad`, '{"at":"yesterday"}');
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      error: {
        type: 'document_parsing_exception',
        caused_by: {
          type: 'illegal_argument_exception',
          reason:
            'failed to parse date field [yesterday] with format [strict_date_optional_time_nanos||epoch_millis]',
        },
      },
    });
  });
});
