import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

/**
 * `_geo_distance` sort and the geo aggregations (ES "Sort search results" geo distance sorting,
 * "Geo-bounds", "Geo-centroid", "Geohash grid" and "Geo-distance" aggregations). Distances are
 * SloppyMath's over Lucene-quantised points (test/unit/geo-point.test.ts checks them against Java).
 */
describe('geo_point sort and aggregations', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'cities';
  const paris = { lat: 48.8566, lon: 2.3522 };

  beforeAll(async () => {
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

  const aggs = async (body: unknown, query: unknown = { match_all: {} }) => {
    const result = await call(server.url, 'POST', `/${index}/_search`, { size: 0, query, aggs: body });
    expect(result.status).toBe(200);
    return (result.json as { aggregations: Record<string, unknown> }).aggregations;
  };

  it('bounds the points, wrapping across the dateline only when narrower', async () => {
    expect(await aggs({ box: { geo_bounds: { field: 'at' } } })).toEqual({
      box: {
        bounds: {
          top_left: { lat: 51.49999998975545, lon: -0.12000001966953278 },
          bottom_right: { lat: 35.67999996710569, lon: 139.68999995850027 },
        },
      },
    });
    await es().indices.create({ index: 'pacific', mappings: { properties: { p: { type: 'geo_point' } } } });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'pacific', _id: 'fiji' } },
        { p: { lat: -17.7, lon: 178 } },
        { index: { _index: 'pacific', _id: 'samoa' } },
        { p: { lat: -13.8, lon: -171.7 } },
      ],
    });
    const wrapped = await call(server.url, 'POST', '/pacific/_search', {
      size: 0,
      aggs: {
        wrap: { geo_bounds: { field: 'p' } },
        flat: { geo_bounds: { field: 'p', wrap_longitude: false } },
      },
    });
    const out = (
      wrapped.json as { aggregations: Record<string, { bounds: Record<string, { lon: number }> }> }
    ).aggregations;
    // The narrower box runs from Fiji east across the dateline to Samoa.
    expect([out.wrap!.bounds.top_left!.lon, out.wrap!.bounds.bottom_right!.lon]).toEqual([
      177.99999995157123, -171.70000000856817,
    ]);
    expect([out.flat!.bounds.top_left!.lon, out.flat!.bounds.bottom_right!.lon]).toEqual([
      -171.70000000856817, 177.99999995157123,
    ]);
    // No points: an empty result, as ES prints it.
    expect(await aggs({ box: { geo_bounds: { field: 'at' } } }, { ids: { values: ['nowhere'] } })).toEqual({
      box: {},
    });
  });

  it('finds the centroid of every point, per bucket too', async () => {
    const result = await aggs({
      c: { geo_centroid: { field: 'at' } },
      by: { terms: { field: 'kind' }, aggs: { c: { geo_centroid: { field: 'at' } } } },
    });
    const c = result.c as { location: { lat: number; lon: number }; count: number };
    expect(c.count).toBe(5);
    expect(c.location.lat).toBeCloseTo((51.5 * 2 + 35.68 * 2 + 48.8566) / 5, 6);
    expect(c.location.lon).toBeCloseTo((-0.12 * 2 + 139.69 * 2 + 2.3522) / 5, 6);
    const buckets = (result.by as { buckets: { key: string; c: { count: number } }[] }).buckets;
    expect(buckets.map((b) => [b.key, b.c.count])).toEqual([
      ['capital', 3],
      ['none', 0],
      ['pair', 2],
    ]);
    expect(await aggs({ c: { geo_centroid: { field: 'at' } } }, { ids: { values: ['nowhere'] } })).toEqual({
      c: { count: 0 },
    });
  });

  it('buckets documents by geohash cell, each document once per cell', async () => {
    expect(await aggs({ grid: { geohash_grid: { field: 'at', precision: 1 } } })).toEqual({
      grid: {
        buckets: [
          { key: 'g', doc_count: 2 },
          { key: 'x', doc_count: 2 },
          { key: 'u', doc_count: 1 },
        ],
      },
    });
    const result = await aggs({
      grid: {
        geohash_grid: { field: 'at', precision: '1000km', size: 1 },
        aggs: { n: { value_count: { field: 'kind' } } },
      },
    });
    // 1000 km cells are geohash level 3 (GeoUtils.geoHashLevelsForPrecision).
    expect(result.grid).toEqual({ buckets: [{ key: 'gcp', doc_count: 2, n: { value: 2 } }] });
    const bounded = await aggs({
      grid: {
        geohash_grid: {
          field: 'at',
          precision: 2,
          bounds: { top_left: { lat: 60, lon: -10 }, bottom_right: { lat: 40, lon: 10 } },
        },
      },
    });
    expect(bounded.grid).toEqual({
      buckets: [
        { key: 'gc', doc_count: 2 },
        { key: 'u0', doc_count: 1 },
      ],
    });
  });

  it('refuses a bad precision and a non-geo field with ES errors', async () => {
    const precision = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: { grid: { geohash_grid: { field: 'at', precision: 13 } } },
    });
    expect(precision.status).toBe(400);
    expect(precision.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'Invalid geohash aggregation precision of 13. Must be between 1 and 12.',
      },
    });
    const keyword = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: { box: { geo_bounds: { field: 'kind' } } },
    });
    expect(keyword.status).toBe(400);
    expect(JSON.stringify(keyword.json)).toContain(
      'Field [kind] of type [keyword] is not supported for aggregation [geo_bounds]',
    );
    const terms = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: { t: { terms: { field: 'at' } } },
    });
    expect(terms.status).toBe(400);
    expect(JSON.stringify(terms.json)).toContain(
      'Field [at] of type [geo_point] is not supported for aggregation [terms]',
    );
  });

  it('counts documents in distance rings from an origin, keyed or not', async () => {
    const result = await aggs({
      rings: {
        geo_distance: {
          field: 'at',
          origin: '48.8566, 2.3522',
          unit: 'km',
          ranges: [{ to: 100 }, { from: 100, to: 1000 }, { from: 1000 }],
        },
        aggs: { kinds: { terms: { field: 'kind' } } },
      },
    });
    const buckets = (result.rings as { buckets: Record<string, unknown>[] }).buckets;
    expect(buckets.map((b) => [b.key, b.from, b.to, b.doc_count])).toEqual([
      ['*-100.0', undefined, 100, 1],
      ['100.0-1000.0', 100, 1000, 2],
      ['1000.0-*', 1000, undefined, 2],
    ]);
    expect((buckets[1]!.kinds as { buckets: unknown[] }).buckets).toEqual([
      { key: 'capital', doc_count: 1 },
      { key: 'pair', doc_count: 1 },
    ]);
    const keyed = await aggs({
      rings: {
        geo_distance: {
          field: 'at',
          origin: { lat: 48.8566, lon: 2.3522 },
          keyed: true,
          ranges: [
            { to: 500000, key: 'near' },
            { from: 500000, key: 'far' },
          ],
        },
      },
    });
    expect(keyed.rings).toEqual({
      buckets: { near: { to: 500000, doc_count: 3 }, far: { from: 500000, doc_count: 2 } },
    });
  });

  it('gives the bounds, centroid and grid of a city cluster with ES numbers', async () => {
    // Amsterdam ×3, Antwerp, Paris ×2 (the shape of search.aggregation/280 and 390 with our own points).
    const points = [
      '52.3676,4.9041',
      '52.3702,4.8952',
      '52.3600,4.8852',
      '51.2194,4.4025',
      '48.8584,2.2945',
      '48.8606,2.3376',
    ];
    await es().indices.create({ index: 'benelux', mappings: { properties: { p: { type: 'geo_point' } } } });
    await es().bulk({
      refresh: true,
      operations: points.flatMap((p, i) => [{ index: { _index: 'benelux', _id: String(i + 1) } }, { p }]),
    });
    const result = await call(server.url, 'POST', '/benelux/_search', {
      size: 0,
      aggs: {
        box: { geo_bounds: { field: 'p' } },
        centre: { geo_centroid: { field: 'p' } },
        grid: { geohash_grid: { field: 'p', precision: 3 } },
      },
    });
    // Printed by the same arithmetic in Java (quantised points, Kahan sums, the reduce).
    expect((result.json as { aggregations: unknown }).aggregations).toEqual({
      box: {
        bounds: {
          top_left: { lat: 52.37019999884069, lon: 2.2944999765604734 },
          bottom_right: { lat: 48.85839999653399, lon: 4.904099917039275 },
        },
      },
      centre: { location: { lat: 51.00603332044557, lon: 3.9531832840293646 }, count: 6 },
      grid: {
        buckets: [
          { key: 'u17', doc_count: 3 },
          { key: 'u09', doc_count: 2 },
          { key: 'u15', doc_count: 1 },
        ],
      },
    });
  });

  it('pages a scroll sorted by distance and counts with a geo filter', async () => {
    const first = await es().search({
      index,
      scroll: '1m',
      size: 2,
      sort: [{ _geo_distance: { at: paris, unit: 'km' } }],
      _source: false,
    });
    const seen = first.hits.hits.map((h) => h._id);
    let page = await es().scroll({ scroll_id: first._scroll_id!, scroll: '1m' });
    while (page.hits.hits.length > 0) {
      seen.push(...page.hits.hits.map((h) => h._id));
      page = await es().scroll({ scroll_id: page._scroll_id!, scroll: '1m' });
    }
    expect(seen).toEqual(['paris', 'london', 'both', 'tokyo', 'nowhere']);
    await es().clearScroll({ scroll_id: page._scroll_id! });
    const count = await es().count({
      index,
      query: { geo_bounding_box: { at: { top_left: [-10, 60], bottom_right: [10, 40] } } },
    });
    expect(count.count).toBe(3);
  });
});
