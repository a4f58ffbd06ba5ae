import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

/**
 * The `flattened` field type (ES reference "Flattened field type", YAML test search/340_flattened):
 * an object's leaves as keywords, queried on the root and on any key, `terms` on keys, `depth_limit`
 * and `ignore_above`.
 */
describe('flattened fields', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'tickets';
  const ids = async (query: Record<string, unknown>) =>
    (await es().search({ index, query, size: 20 })).hits.hits.map((h) => h._id).sort();

  beforeAll(async () => {
    await es().indices.create({
      index,
      mappings: {
        properties: {
          labels: { type: 'flattened' },
          short: { type: 'flattened', ignore_above: 5, depth_limit: 2 },
        },
      },
    });
    await es().bulk({
      refresh: true,
      operations: [
        [
          '1',
          {
            labels: { priority: 'urgent', release: ['v1.2.5', 'v1.3.0'], timestamp: { created: 1541458026 } },
          },
        ],
        ['2', { labels: { priority: 'low', release: 'v1.3.0', owner: null } }],
        ['3', { labels: { priority: 'urgent', team: { name: 'low' } } }],
        ['4', { other: 1, short: { a: 'tiny', b: 'too long' } }],
      ].flatMap(([id, doc]) => [{ index: { _index: index, _id: id as string } }, doc as object]),
    });
  });

  it('keeps the mapping as given and its parameters', async () => {
    const mapping = await es().indices.getMapping({ index });
    expect(mapping[index]?.mappings.properties?.short).toEqual({
      type: 'flattened',
      ignore_above: 5,
      depth_limit: 2,
    });
  });

  it('matches any leaf on the root and a key’s leaves on the key', async () => {
    expect(await ids({ term: { labels: 'urgent' } })).toEqual(['1', '3']);
    expect(await ids({ term: { labels: 'low' } })).toEqual(['2', '3']);
    expect(await ids({ term: { 'labels.priority': 'low' } })).toEqual(['2']);
    expect(await ids({ term: { 'labels.team.name': 'low' } })).toEqual(['3']);
    expect(await ids({ term: { 'labels.timestamp.created': 1541458026 } })).toEqual(['1']);
    expect(await ids({ terms: { 'labels.release': ['v1.2.5', 'v9'] } })).toEqual(['1']);
    expect(await ids({ match: { 'labels.release': 'v1.3.0' } })).toEqual(['1', '2']);
  });

  it('answers prefix, range and exists on the root and on keys', async () => {
    expect(await ids({ prefix: { 'labels.release': 'v1.2' } })).toEqual(['1']);
    expect(await ids({ prefix: { labels: 'urg' } })).toEqual(['1', '3']);
    expect(await ids({ range: { 'labels.release': { gte: 'v1.3' } } })).toEqual(['1', '2']);
    expect(await ids({ range: { 'labels.priority': { lt: 'p' } } })).toEqual(['2']);
    expect(await ids({ range: { labels: { gt: 'v1.2.5' } } })).toEqual(['1', '2']);
    expect(await ids({ exists: { field: 'labels' } })).toEqual(['1', '2', '3']);
    // A key is a leaf's whole path: `labels.team` holds no leaf of its own (ES: a prefix on `team\0`).
    expect(await ids({ exists: { field: 'labels.team.name' } })).toEqual(['3']);
    expect(await ids({ exists: { field: 'labels.team' } })).toEqual([]);
    expect(await ids({ exists: { field: 'labels.owner' } })).toEqual([]);
  });

  it('aggregates terms on a key and on the root', async () => {
    const result = await es().search({
      index,
      size: 0,
      aggs: {
        priority: { terms: { field: 'labels.priority' } },
        all: { terms: { field: 'labels', size: 3 } },
      },
    });
    expect(result.aggregations).toEqual({
      priority: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'urgent', doc_count: 2 },
          { key: 'low', doc_count: 1 },
        ],
      },
      all: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 2,
        buckets: [
          { key: 'low', doc_count: 2 },
          { key: 'urgent', doc_count: 2 },
          { key: 'v1.3.0', doc_count: 2 },
        ],
      },
    });
    const refused = await failure(
      es().search({ index, size: 0, aggs: { m: { min: { field: 'labels.priority' } } } }),
    );
    expect(refused.status).toBe(400);
  });

  it('leaves values over ignore_above out and refuses objects deeper than depth_limit', async () => {
    expect(await ids({ term: { 'short.a': 'tiny' } })).toEqual(['4']);
    expect(await ids({ term: { 'short.b': 'too long' } })).toEqual([]);
    const result = await call(server.url, 'PUT', `/${index}/_doc/deep`, '{"short":{"a":{"b":{"c":1}}}}');
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      error: {
        type: 'document_parsing_exception',
        caused_by: {
          type: 'illegal_argument_exception',
          reason: 'The provided [flattened] field [short] exceeds the maximum depth limit of [2].',
        },
      },
    });
    expect(await es().exists({ index, id: 'deep' })).toBe(false);
  });

  it('returns the object in `fields`', async () => {
    const result = await es().search({ index, query: { ids: { values: ['2'] } }, fields: ['labels'] });
    expect(result.hits.hits[0]?.fields).toEqual({
      labels: [{ priority: 'low', release: 'v1.3.0', owner: null }],
    });
  });
});
