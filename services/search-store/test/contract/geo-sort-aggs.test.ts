import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8 } from '../support/http';

/**
 * `_geo_distance` sort and the geo aggregations (ES "Sort search results" geo distance sorting,
 * "Geo-bounds", "Geo-centroid", "Geohash grid" and "Geo-distance" aggregations). Distances are
 * SloppyMath's over Lucene-quantised points (test/unit/geo-point.test.ts checks them against Java).
 */
describe('geo_point sort and aggregations', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'cities';
  const paris = { lat: 48.8566, lon: 2.3522 };

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      mappings: { properties: { at: { type: 'geo_point' }, kind: { type: 'keyword' } } },
    });
    const docs: Record<string, unknown> = {
      london: { at: { lat: 51.5, lon: -0.12 }, kind: 'capital' },
      tokyo: { at: 'POINT (139.69 35.68)', kind: 'capital' },
      paris: { at: [2.3522, 48.8566], kind: 'capital' },
      both: {
        at: [
          { lat: 51.5, lon: -0.12 },
          { lat: 35.68, lon: 139.69 },
        ],
        kind: 'pair',
      },
      nowhere: { kind: 'none' },
    };
    await es().bulk({
      refresh: true,
      operations: Object.entries(docs).flatMap(([id, doc]) => [{ index: { _index: index, _id: id } }, doc]),
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  const sorted = async (sort: unknown) => {
    const result = await call(server.url, 'POST', `/${index}/_search`, { sort, _source: false });
    expect(result.status).toBe(200);
    return (result.json as { hits: { hits: { _id: string; sort: unknown[] }[] } }).hits.hits.map((h) => [
      h._id,
      h.sort[0],
    ]);
  };

  it('sorts by distance with ES values, missing points last as Infinity', async () => {
    expect(await sorted([{ _geo_distance: { at: paris, order: 'asc', unit: 'km' } }])).toEqual([
      ['paris', 0],
      ['london', 342.5726792485677],
      ['both', 342.5726792485677],
      ['tokyo', 9712.961280657593],
      ['nowhere', 'Infinity'],
    ]);
  });

  it('takes the farthest point descending, and mode, unit and point forms', async () => {
    expect(await sorted([{ _geo_distance: { at: '48.8566,2.3522', order: 'desc', unit: 'm' } }])).toEqual([
      ['nowhere', 'Infinity'],
      ['tokyo', 9712961.280657593],
      ['both', 9712961.280657593],
      ['london', 342572.67924856767],
      ['paris', 0],
    ]);
    const min = await sorted([{ _geo_distance: { at: [2.3522, 48.8566], mode: 'min', order: 'desc' } }]);
    expect(min.slice(1, 3)).toEqual([
      ['tokyo', 9712961.280657593],
      ['london', 342572.67924856767],
    ]);
  });

  it('pages with search_after on the distance', async () => {
    const result = await es().search({
      index,
      sort: [{ _geo_distance: { at: paris, unit: 'km' } }, { kind: 'asc' }],
      search_after: [342.5726792485677, 'capital'],
    });
    expect(result.hits.hits.map((h) => h._id)).toEqual(['both', 'tokyo', 'nowhere']);
  });

  it('refuses an unmapped field unless ignore_unmapped, a bad unit and a bad point', async () => {
    const unmapped = await call(server.url, 'POST', `/${index}/_search`, {
      sort: [{ _geo_distance: { elsewhere: paris } }],
    });
    expect(unmapped.status).toBe(400);
    expect(unmapped.json).toMatchObject({
      error: {
        root_cause: [
          {
            type: 'illegal_argument_exception',
            reason: 'failed to find mapper for [elsewhere] for geo distance based sort',
          },
        ],
      },
    });
    const ignored = await sorted([{ _geo_distance: { elsewhere: paris, ignore_unmapped: true } }]);
    expect(ignored.map(([, v]) => v)).toEqual(['Infinity', 'Infinity', 'Infinity', 'Infinity', 'Infinity']);
    const unit = await call(server.url, 'POST', `/${index}/_search`, {
      sort: [{ _geo_distance: { at: paris, unit: 'furlongs' } }],
    });
    expect(unit.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'No distance unit match [furlongs]' },
    });
    const lat = await call(server.url, 'POST', `/${index}/_search`, {
      sort: [{ _geo_distance: { at: { lat: 95, lon: 0 } } }],
    });
    expect(lat.json).toMatchObject({
      error: {
        type: 'parse_exception',
        reason: 'illegal latitude value [95.0] for [GeoDistanceSort] for field [at].',
      },
    });
    const keyword = await call(server.url, 'POST', `/${index}/_search`, {
      sort: [{ _geo_distance: { kind: paris } }],
    });
    expect(keyword.json).toMatchObject({
      error: {
        root_cause: [
          {
            type: 'illegal_argument_exception',
            reason: 'unable to apply geo distance sort to field [kind] of type [keyword]',
          },
        ],
      },
    });
  });
});
