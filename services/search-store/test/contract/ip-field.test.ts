import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

/**
 * The `ip` field type (ES reference "IP field type", YAML tests search/200_ignore_malformed and the ip
 * cases of search/330_fetch_fields): IPv4 and IPv6 in one field, term on an address or a CIDR block,
 * terms, range, exists, sort, terms aggregation, `fields` in canonical form, ES's errors.
 */
describe('ip fields', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'hosts';
  const docs: Record<string, unknown> = {
    a: { addr: '192.168.1.10' },
    b: { addr: '192.168.200.1' },
    c: { addr: '10.0.0.1' },
    d: { addr: '2001:DB8:0:0:0:0:0:1' },
    e: { addr: '2001:db9::1' },
    f: { addr: '::ffff:10.0.0.2' },
    g: { addr: ['192.168.1.10', '::1'] },
    h: { other: 1 },
  };
  const ids = async (query: Record<string, unknown>) =>
    (await es().search({ index, query, size: 20 })).hits.hits.map((h) => h._id).sort();

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      mappings: {
        properties: {
          addr: { type: 'ip' },
          loose: { type: 'ip', ignore_malformed: true },
          other: { type: 'long' },
        },
      },
    });
    await es().bulk({
      refresh: true,
      operations: Object.entries(docs).flatMap(([id, doc]) => [{ index: { _index: index, _id: id } }, doc]),
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('shows the mapping as given and never maps a dynamic string as ip', async () => {
    const mapping = await es().indices.getMapping({ index });
    expect(mapping[index]?.mappings.properties?.addr).toEqual({ type: 'ip' });
    await es().index({ index: 'dyn-ip', id: '1', document: { a: '10.0.0.1' }, refresh: true });
    const dynamic = await es().indices.getMapping({ index: 'dyn-ip' });
    expect(dynamic['dyn-ip']?.mappings.properties?.a).toEqual({
      type: 'text',
      fields: { keyword: { type: 'keyword', ignore_above: 256 } },
    });
  });

  it('finds an address by term in any of its spellings', async () => {
    expect(await ids({ term: { addr: '192.168.1.10' } })).toEqual(['a', 'g']);
    expect(await ids({ term: { addr: '2001:db8::1' } })).toEqual(['d']);
    expect(await ids({ term: { addr: '2001:0db8::0001' } })).toEqual(['d']);
    // An IPv4-mapped IPv6 address is the IPv4 address.
    expect(await ids({ term: { addr: '10.0.0.2' } })).toEqual(['f']);
    expect(await ids({ term: { addr: '::ffff:10.0.0.1' } })).toEqual(['c']);
    expect(await ids({ match: { addr: '::1' } })).toEqual(['g']);
  });

  it('matches CIDR blocks, IPv4 and IPv6', async () => {
    expect(await ids({ term: { addr: '192.168.0.0/16' } })).toEqual(['a', 'b', 'g']);
    expect(await ids({ term: { addr: '192.168.1.0/24' } })).toEqual(['a', 'g']);
    expect(await ids({ term: { addr: '10.0.0.0/8' } })).toEqual(['c', 'f']);
    expect(await ids({ term: { addr: '2001:db8::/32' } })).toEqual(['d']);
    expect(await ids({ term: { addr: '2001:db8::/31' } })).toEqual(['d', 'e']);
    expect(await ids({ term: { addr: '0.0.0.0/0' } })).toEqual(['a', 'b', 'c', 'f', 'g']);
    expect(await ids({ terms: { addr: ['10.0.0.1', '2001:db9::/32', '192.168.200.0/24'] } })).toEqual([
      'b',
      'c',
      'e',
    ]);
  });

  it('ranges over addresses in byte order, bounds exclusive or inclusive', async () => {
    expect(await ids({ range: { addr: { gte: '10.0.0.1', lte: '10.0.0.2' } } })).toEqual(['c', 'f']);
    expect(await ids({ range: { addr: { gt: '10.0.0.1', lt: '192.168.200.1' } } })).toEqual(['a', 'f', 'g']);
    // IPv4 addresses sit inside ::ffff:0:0/96, so ::1 and 2001:… are below and above all of them.
    expect(await ids({ range: { addr: { lt: '0.0.0.0' } } })).toEqual(['g']);
    expect(await ids({ range: { addr: { gt: '255.255.255.255' } } })).toEqual(['d', 'e']);
    expect(await ids({ range: { addr: { gt: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' } } })).toEqual([]);
  });

  it('answers exists on the field', async () => {
    expect(await ids({ exists: { field: 'addr' } })).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('sorts by address with the canonical address as the sort value, and pages with search_after', async () => {
    const asc = await es().search({ index, sort: [{ addr: 'asc' }], query: { exists: { field: 'addr' } } });
    expect(asc.hits.hits.map((h) => [h._id, h.sort])).toEqual([
      ['g', ['::1']],
      ['c', ['10.0.0.1']],
      ['f', ['10.0.0.2']],
      ['a', ['192.168.1.10']],
      ['b', ['192.168.200.1']],
      ['d', ['2001:db8::1']],
      ['e', ['2001:db9::1']],
    ]);
    const desc = await es().search({ index, sort: [{ addr: 'desc' }], size: 2 });
    expect(desc.hits.hits.map((h) => [h._id, h.sort])).toEqual([
      ['e', ['2001:db9::1']],
      ['d', ['2001:db8::1']],
    ]);
    const after = await es().search({
      index,
      sort: [{ addr: 'asc' }],
      search_after: ['10.0.0.2'],
      size: 2,
    });
    expect(after.hits.hits.map((h) => h._id)).toEqual(['a', 'b']);
    const missing = await es().search({
      index,
      sort: [{ addr: { order: 'asc', missing: '10.0.0.1' } }],
      size: 3,
      query: { ids: { values: ['h', 'c', 'a'] } },
    });
    expect(missing.hits.hits.map((h) => [h._id, h.sort])).toEqual([
      ['c', ['10.0.0.1']],
      ['h', ['10.0.0.1']],
      ['a', ['192.168.1.10']],
    ]);
  });

  it('buckets a terms aggregation by address, keys as ES prints them', async () => {
    const result = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: { by: { terms: { field: 'addr', order: { _key: 'asc' } } } },
    });
    expect(result.status).toBe(200);
    expect((result.json as { aggregations: unknown }).aggregations).toEqual({
      by: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: '::1', doc_count: 1 },
          { key: '10.0.0.1', doc_count: 1 },
          { key: '10.0.0.2', doc_count: 1 },
          { key: '192.168.1.10', doc_count: 2 },
          { key: '192.168.200.1', doc_count: 1 },
          { key: '2001:db8::1', doc_count: 1 },
          { key: '2001:db9::1', doc_count: 1 },
        ],
      },
    });
    const counted = await es().search({
      index,
      size: 0,
      aggs: { n: { value_count: { field: 'addr' } }, top: { terms: { field: 'addr', size: 1 } } },
    });
    expect(counted.aggregations).toMatchObject({
      n: { value: 8 },
      top: { sum_other_doc_count: 6, buckets: [{ key: '192.168.1.10', doc_count: 2 }] },
    });
  });

  it('refuses a numeric aggregation on an ip field', async () => {
    const refused = await failure(es().search({ index, size: 0, aggs: { m: { min: { field: 'addr' } } } }));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(
      'Field [addr] of type [ip] is not supported for aggregation [min]',
    );
  });

  it('returns `fields` in canonical form and `_source` as sent', async () => {
    const result = await es().search({
      index,
      query: { ids: { values: ['d', 'f', 'g'] } },
      fields: ['addr'],
      sort: ['_doc'],
    });
    expect(result.hits.hits.map((h) => [h._id, h._source, h.fields])).toEqual([
      ['d', { addr: '2001:DB8:0:0:0:0:0:1' }, { addr: ['2001:db8::1'] }],
      ['f', { addr: '::ffff:10.0.0.2' }, { addr: ['10.0.0.2'] }],
      ['g', { addr: ['192.168.1.10', '::1'] }, { addr: ['192.168.1.10', '::1'] }],
    ]);
  });

  it.each([
    ['foo', "'foo' is not an IP string literal."],
    ['1.2.3.256', "'1.2.3.256' is not an IP string literal."],
    [':::1', "':::1' is not an IP string literal."],
    [12, "'12' is not an IP string literal."],
  ])('refuses the document value %j with mapper errors as ES', async (value, reason) => {
    const id = `bad-${String(value)}`;
    const refused = await failure(es().index({ index, id, document: { addr: value } }));
    const outer = `[1:9] failed to parse field [addr] of type [ip] in document with id '${id}'. Preview of field's value: '${String(value)}'`;
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          root_cause: [{ type: 'document_parsing_exception', reason: outer }],
          type: 'document_parsing_exception',
          reason: outer,
          caused_by: { type: 'illegal_argument_exception', reason },
        },
        status: 400,
      },
    });
    expect(await es().exists({ index, id })).toBe(false);
  });

  it('keeps a document whose value is malformed under ignore_malformed, without indexing the value', async () => {
    await es().index({ index, id: 'm1', document: { loose: 'quux' }, refresh: true });
    await es().index({ index, id: 'm2', document: { loose: ['nope', '1.1.1.1'] }, refresh: true });
    expect((await es().get({ index, id: 'm1' }))._source).toEqual({ loose: 'quux' });
    expect(await ids({ exists: { field: 'loose' } })).toEqual(['m2']);
    expect(await ids({ term: { loose: '1.1.1.1' } })).toEqual(['m2']);
    const fields = await es().search({ index, query: { ids: { values: ['m1', 'm2'] } }, fields: ['loose'] });
    expect(fields.hits.hits.map((h) => [h._id, h.fields])).toEqual([
      ['m1', undefined],
      ['m2', { loose: ['1.1.1.1'] }],
    ]);
  });

  it.each([
    [{ term: { addr: 'foo' } }, 'illegal_argument_exception', "'foo' is not an IP string literal."],
    [
      { term: { addr: '10.0.0.0/40' } },
      'illegal_argument_exception',
      'Illegal prefix length [40] in [10.0.0.0/40]. Must be 0-32 for IPv4 ranges, 0-128 for IPv6 ranges',
    ],
    [{ terms: { addr: ['10.0.0.1', '10.0.0.0/x'] } }, 'number_format_exception', 'For input string: "x"'],
    [
      { range: { addr: { gte: '10.0.0.0/8' } } },
      'illegal_argument_exception',
      "'10.0.0.0/8' is not an IP string literal.",
    ],
  ])(
    'answers a bad query value %j with ES 400 search_phase_execution_exception',
    async (query, type, reason) => {
      const result = await call(server.url, 'POST', `/${index}/_search`, { query });
      expect(result.status).toBe(400);
      const shard = {
        type: 'query_shard_exception',
        reason: `failed to create query: ${reason}`,
        caused_by: { type, reason },
      };
      expect(result.json).toMatchObject({
        error: {
          type: 'search_phase_execution_exception',
          reason: 'all shards failed',
          root_cause: [shard],
          failed_shards: [{ shard: 0, index, reason: shard }],
        },
        status: 400,
      });
    },
  );
});
