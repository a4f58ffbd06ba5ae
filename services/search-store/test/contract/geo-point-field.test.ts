import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

/**
 * The `geo_point` field type and its queries (ES reference "Geopoint field type", "Geo-distance
 * query", "Geo-bounding box query"; YAML search/400_geo_bounding_box_query): every input form,
 * arrays of points, ignore_malformed, ignore_z_value, null_value, range errors; geo_distance with
 * units and validation; geo_bounding_box in every corner form and across the dateline.
 */
describe('geo_point fields and queries', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'places';
  const docs: Record<string, unknown> = {
    string: { location: '34.5, 60.5' },
    object: { location: { lat: -34.5, lon: 60.5 } },
    array: { location: [-60.5, 34.5] },
    wkt: { location: 'POINT (-60.5 -34.5)' },
    geojson: { location: { type: 'Point', coordinates: [0, 0] } },
    geohash: { location: 'u09tvw' }, // Paris
    strings: { location: { lat: '48.8566', lon: '2.3522' } },
    many: { location: [{ lat: 51.5, lon: -0.12 }, 'POINT (139.69 35.68)'] },
    fiji: { location: { lat: -17.7, lon: 178.0 } },
    samoa: { location: { lat: -13.8, lon: -171.7 } },
    none: { name: 'no location' },
  };
  const ids = async (query: Record<string, unknown>, on = index) =>
    (await es().search({ index: on, query, size: 50 })).hits.hits.map((h) => h._id).sort();

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      mappings: { properties: { location: { type: 'geo_point' }, name: { type: 'keyword' } } },
    });
    const bulk = await es().bulk({
      refresh: true,
      operations: Object.entries(docs).flatMap(([id, doc]) => [{ index: { _index: index, _id: id } }, doc]),
    });
    expect(bulk.errors).toBe(false);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('shows the mapping as given and never maps a dynamic value as geo_point', async () => {
    const mapping = await es().indices.getMapping({ index });
    expect(mapping[index]?.mappings.properties?.location).toEqual({ type: 'geo_point' });
    await es().index({ index: 'geo-dyn', id: '1', document: { at: '41.12,-71.34', p: { lat: 1, lon: 2 } } });
    const dynamic = await es().indices.getMapping({ index: 'geo-dyn' });
    expect(dynamic['geo-dyn']?.mappings.properties?.at?.type).toBe('text');
    expect(dynamic['geo-dyn']?.mappings.properties?.p).toEqual({
      properties: { lat: { type: 'long' }, lon: { type: 'long' } },
    });
  });

  it('refuses a latitude past 90 and a longitude past 180 with ES errors', async () => {
    const lat = await call(server.url, 'PUT', `/${index}/_doc/bad1`, { location: { lat: 91, lon: 0 } });
    expect(lat.status).toBe(400);
    expect(lat.json).toMatchObject({
      error: {
        type: 'document_parsing_exception',
        reason: expect.stringContaining(
          "failed to parse field [location] of type [geo_point] in document with id 'bad1'",
        ),
        caused_by: {
          type: 'illegal_argument_exception',
          reason: 'illegal latitude value [91.0] for location',
        },
      },
      status: 400,
    });
    const lon = await failure(es().index({ index, id: 'bad2', document: { location: [181.5, 0] } }));
    expect(lon.body.error).toMatchObject({
      caused_by: {
        type: 'illegal_argument_exception',
        reason: 'illegal longitude value [181.5] for location',
      },
    });
  });

  it.each([
    [{ lat: 1 }, 'Required [lon]'],
    [{ lon: 1 }, 'Required [lat]'],
    [{ lat: true, lon: 1 }, 'latitude must be a number'],
    [{ type: 'LineString', coordinates: [0, 0] }, "[type] for geo_point can only be 'Point'"],
    [{ type: 'Point' }, 'Required [coordinates]'],
    ['not a geohash!', 'unsupported symbol [o] in geohash [not a geohash!]'],
    ['1,2,3,4', 'failed to parse [1,2,3,4], expected 2 or 3 coordinates but found: [4]'],
    ['MULTIPOINT (1 2)', '[geo_point] supports only POINT among WKT primitives, but found MULTIPOINT'],
    ['LINESTRING (1 2, 3 4)', 'latitude must be a number'],
    [[1, 2, 3, 4], '[geo_point] field type does not accept > 3 dimensions'],
    [true, 'geo_point expected'],
  ])('refuses the malformed point %j: %s', async (location, reason) => {
    const refused = await failure(es().index({ index, id: 'malformed', document: { location } }));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      type: 'document_parsing_exception',
      caused_by: { type: 'parse_exception', reason },
    });
  });

  it('keeps documents with malformed points under ignore_malformed, normalising out-of-range ones', async () => {
    await es().indices.create({
      index: 'geo-loose',
      mappings: { properties: { p: { type: 'geo_point', ignore_malformed: true } } },
    });
    await es().index({ index: 'geo-loose', id: 'junk', document: { p: 'not a point!' } });
    await es().index({ index: 'geo-loose', id: 'wrapped', document: { p: { lat: 10, lon: 190 } } });
    await es().indices.refresh({ index: 'geo-loose' });
    expect(await ids({ exists: { field: 'p' } }, 'geo-loose')).toEqual(['wrapped']);
    // 190° east is 170° west.
    expect(await ids({ geo_distance: { distance: '1km', p: { lat: 10, lon: -170 } } }, 'geo-loose')).toEqual([
      'wrapped',
    ]);
    const source = await es().get({ index: 'geo-loose', id: 'junk' });
    expect(source._source).toEqual({ p: 'not a point!' });
  });

  it('takes a Z value unless ignore_z_value is false', async () => {
    await es().indices.create({
      index: 'geo-z',
      mappings: {
        properties: { p: { type: 'geo_point' }, strict: { type: 'geo_point', ignore_z_value: false } },
      },
    });
    await es().index({ index: 'geo-z', id: '1', document: { p: [1, 2, 300] }, refresh: true });
    expect(await ids({ geo_distance: { distance: '1m', p: [1, 2] } }, 'geo-z')).toEqual(['1']);
    const refused = await failure(es().index({ index: 'geo-z', id: '2', document: { strict: '1,2,3' } }));
    expect(refused.body.error).toMatchObject({
      caused_by: {
        type: 'parse_exception',
        reason:
          'Exception parsing coordinates: found Z value [3.0] but [ignore_z_value] parameter is [false]',
      },
    });
  });

  it('indexes null_value for an explicit null and checks it when mapping', async () => {
    await es().indices.create({
      index: 'geo-null',
      mappings: { properties: { p: { type: 'geo_point', null_value: '10,20' } } },
    });
    await es().index({ index: 'geo-null', id: 'n', document: { p: null }, refresh: true });
    expect(await ids({ geo_distance: { distance: '1m', p: { lat: 10, lon: 20 } } }, 'geo-null')).toEqual([
      'n',
    ]);
    const bad = await call(server.url, 'PUT', '/geo-null-bad', {
      mappings: { properties: { p: { type: 'geo_point', null_value: { lat: 100, lon: 0 } } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      error: {
        type: 'mapper_parsing_exception',
        reason:
          'Failed to parse mapping: Error parsing [null_value] on field [p]: illegal latitude value [100.0]',
      },
    });
  });

  it('finds points by geo_distance in every unit and point form', async () => {
    // Paris to London is about 344 km.
    const paris = { lat: 48.8566, lon: 2.3522 };
    expect(await ids({ geo_distance: { distance: '10km', location: paris } })).toEqual([
      'geohash',
      'strings',
    ]);
    expect(await ids({ geo_distance: { distance: '350km', location: paris } })).toEqual([
      'geohash',
      'many',
      'strings',
    ]);
    expect(await ids({ geo_distance: { distance: '340km', location: '48.8566,2.3522' } })).toEqual([
      'geohash',
      'strings',
    ]);
    expect(await ids({ geo_distance: { distance: '220mi', location: [2.3522, 48.8566] } })).toEqual([
      'geohash',
      'many',
      'strings',
    ]);
    expect(
      await ids({ geo_distance: { distance: 350, unit: 'km', location: 'POINT (2.3522 48.8566)' } }),
    ).toEqual(['geohash', 'many', 'strings']);
    expect(await ids({ geo_distance: { distance: '1m', 'location.lat': 0, 'location.lon': 0 } })).toEqual([
      'geojson',
    ]);
    expect(await ids({ geo_distance: { distance: '1m', location: 's00000' } })).toEqual(['geojson']);
    // Across the dateline: Fiji and Samoa are about 1,100 km apart.
    expect(await ids({ geo_distance: { distance: '1200km', location: { lat: -17.7, lon: 178.0 } } })).toEqual(
      ['fiji', 'samoa'],
    );
  });

  it('scores geo queries as constant filters and combines them in bool', async () => {
    const result = await es().search({
      index,
      query: {
        bool: {
          must: [{ geo_distance: { distance: '10km', location: { lat: 48.8566, lon: 2.3522 }, boost: 2.5 } }],
          must_not: [{ ids: { values: ['strings'] } }],
        },
      },
    });
    expect(result.hits.hits.map((h) => [h._id, h._score])).toEqual([['geohash', 2.5]]);
  });

  it('refuses a center out of range unless told to coerce or ignore it', async () => {
    const refused = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_distance: { distance: '1km', location: { lat: 91, lon: 0 } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [
          { type: 'query_shard_exception', reason: 'illegal latitude value [91.0] for [geo_distance]' },
        ],
      },
    });
    // COERCE folds longitude 360 back to 0.
    expect(
      await ids({
        geo_distance: { distance: '1m', location: { lat: 0, lon: 360 }, validation_method: 'coerce' },
      }),
    ).toEqual(['geojson']);
  });

  it('refuses unknown units, bad distances and unmapped fields with ES errors', async () => {
    const unit = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_distance: { distance: '12lightyears', location: [0, 0] } },
    });
    expect(unit.status).toBe(400);
    expect(unit.json).toMatchObject({
      error: { type: 'number_format_exception', reason: 'For input string: "12lightyears"' },
    });
    const unitName = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_distance: { distance: 12, unit: 'parsecs', location: [0, 0] } },
    });
    expect(unitName.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'No distance unit match [parsecs]' },
    });
    const missing = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_distance: { location: [0, 0] } },
    });
    expect(missing.json).toMatchObject({
      error: { type: 'parsing_exception', reason: "geo_distance requires 'distance' to be specified" },
    });
    const zero = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_distance: { distance: 0, location: [0, 0] } },
    });
    expect(zero.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'distance must be greater than zero' },
    });
    const unmapped = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_distance: { distance: '1km', nowhere: [0, 0] } },
    });
    expect(unmapped.status).toBe(400);
    expect(unmapped.json).toMatchObject({
      error: {
        root_cause: [{ type: 'query_shard_exception', reason: 'failed to find geo field [nowhere]' }],
      },
    });
    expect(await ids({ geo_distance: { distance: '1km', nowhere: [0, 0], ignore_unmapped: true } })).toEqual(
      [],
    );
    const wrongType = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_bounding_box: { name: { top_left: [0, 1], bottom_right: [1, 0] } } },
    });
    expect(wrongType.json).toMatchObject({
      error: {
        root_cause: [
          {
            type: 'query_shard_exception',
            reason: 'Field [name] is of unsupported type [keyword] for [geo_bounding_box] query',
          },
        ],
      },
    });
  });

  it('finds points in a bounding box given in every form', async () => {
    const west = ['array', 'geojson', 'many'];
    expect(
      await ids({ geo_bounding_box: { location: { top_left: [-180, 90], bottom_right: [0, 0] } } }),
    ).toEqual(west);
    expect(
      await ids({
        geo_bounding_box: {
          location: { top_left: { lat: 90, lon: -180 }, bottom_right: { lat: 0, lon: 0 } },
        },
      }),
    ).toEqual(west);
    expect(
      await ids({ geo_bounding_box: { location: { top: 90, left: -180, bottom: 0, right: 0 } } }),
    ).toEqual(west);
    expect(
      await ids({ geo_bounding_box: { location: { top_right: '90,0', bottom_left: 'POINT (-180 0)' } } }),
    ).toEqual(west);
    expect(await ids({ geo_bounding_box: { location: { wkt: 'BBOX (-180, 0, 90, 0)' } } })).toEqual(west);
    // A geohash corner is that corner of its cell: "s" spans lat 0..45, lon 0..45.
    expect(await ids({ geo_bounding_box: { location: { top_left: 's', bottom_right: 's' } } })).toEqual([
      'geojson',
    ]);
    expect(await ids({ geo_bounding_box: { location: { geohash: 's' } } })).toEqual(['geojson']);
    // Map tile 1/0/0 is the north-west quarter (lon -180..0, lat 0..85.05).
    expect(await ids({ geo_bounding_box: { location: { geotile: '1/0/0' } } })).toEqual(west);
  });

  it('crosses the dateline when left is beyond right', async () => {
    expect(
      await ids({ geo_bounding_box: { location: { top_left: [170, -10], bottom_right: [-170, -20] } } }),
    ).toEqual(['fiji', 'samoa']);
    expect(
      await ids({ geo_bounding_box: { location: { top_left: [-170, -10], bottom_right: [170, -40] } } }),
    ).toEqual(['object', 'wkt']);
  });

  it('validates box corners: STRICT refuses, IGNORE_MALFORMED takes them', async () => {
    const refused = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_bounding_box: { location: { top_left: [-180, 95], bottom_right: [0, 0] } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      error: {
        root_cause: [
          { type: 'query_shard_exception', reason: "couldn't validate latitude/ longitude values" },
        ],
      },
    });
    expect(
      await ids({
        geo_bounding_box: {
          location: { top_left: [-180, 95], bottom_right: [0, 0] },
          validation_method: 'IGNORE_MALFORMED',
        },
      }),
    ).toEqual(['array', 'geojson', 'many']);
    const below = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_bounding_box: { location: { top: 0, bottom: 10, left: 0, right: 1 } } },
    });
    expect(below.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'top is below bottom corner: 0.0 vs. 10.0' },
    });
    const unexpected = await call(server.url, 'POST', `/${index}/_search`, {
      query: { geo_bounding_box: { location: { top_left: [0, 1], bottom_right: [1, 0] }, colour: 'red' } },
    });
    expect(unexpected.json).toMatchObject({
      error: {
        type: 'parsing_exception',
        reason: 'failed to parse [geo_bounding_box] query. unexpected field [colour]',
      },
    });
  });

  it('shows points in fields as GeoJSON, or WKT on request, as given in _source', async () => {
    const hits = async (fields: unknown) => {
      const result = await call(server.url, 'POST', `/${index}/_search`, {
        query: { ids: { values: ['object', 'many', 'none'] } },
        sort: [{ name: 'asc' }],
        _source: false,
        fields,
      });
      expect(result.status).toBe(200);
      if (!Array.isArray(fields) || typeof fields[0] === 'string')
        expect(result.text).toContain('{"coordinates":[60.5,-34.5],"type":"Point"}');
      const body = result.json as { hits: { hits: { _id: string; fields?: unknown }[] } };
      return Object.fromEntries(body.hits.hits.map((h) => [h._id, h.fields]));
    };
    expect(await hits(['location'])).toEqual({
      object: { location: [{ type: 'Point', coordinates: [60.5, -34.5] }] },
      many: {
        location: [
          { type: 'Point', coordinates: [-0.12, 51.5] },
          { type: 'Point', coordinates: [139.69, 35.68] },
        ],
      },
      none: undefined,
    });
    expect(await hits([{ field: 'location', format: 'wkt' }])).toEqual({
      object: { location: ['POINT (60.5 -34.5)'] },
      many: { location: ['POINT (-0.12 51.5)', 'POINT (139.69 35.68)'] },
      none: undefined,
    });
  });

  it('refuses to sort on a geo_point field by name', async () => {
    const refused = await call(server.url, 'POST', `/${index}/_search`, { sort: ['location'] });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      error: {
        root_cause: [
          {
            type: 'illegal_argument_exception',
            reason: "can't sort on geo_point field without using specific sorting feature, like geo_distance",
          },
        ],
      },
    });
  });

  it('refuses term and range queries on a geo_point field as ES does', async () => {
    const term = await call(server.url, 'POST', `/${index}/_search`, { query: { term: { location: 's' } } });
    expect(term.status).toBe(400);
    expect(term.json).toMatchObject({
      error: {
        root_cause: [
          {
            type: 'query_shard_exception',
            reason:
              'failed to create query: Geometry fields do not support exact searching, use dedicated geometry queries instead: [location]',
          },
        ],
      },
    });
    const range = await call(server.url, 'POST', `/${index}/_search`, {
      query: { range: { location: { gte: 1 } } },
    });
    expect(range.json).toMatchObject({
      error: {
        root_cause: [
          {
            type: 'query_shard_exception',
            reason:
              'failed to create query: Field [location] of type [geo_point] does not support range queries',
          },
        ],
      },
    });
  });

  it('indexes the geohash of each point into a multi-field, whatever form the point came in', async () => {
    await es().indices.create({
      index: 'geo-hash',
      mappings: { properties: { p: { type: 'geo_point', fields: { hash: { type: 'keyword' } } } } },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'geo-hash', _id: 'object' } },
        { p: { lat: 48.8566, lon: 2.3522 } },
        { index: { _index: 'geo-hash', _id: 'wkt' } },
        { p: 'POINT (2.3522 48.8566)' },
        { index: { _index: 'geo-hash', _id: 'london' } },
        { p: [-0.12, 51.5] },
      ],
    });
    expect(await ids({ prefix: { 'p.hash': 'u09tv' } }, 'geo-hash')).toEqual(['object', 'wkt']);
    const result = await es().search({
      index: 'geo-hash',
      size: 0,
      aggs: { hashes: { terms: { field: 'p.hash' } } },
    });
    const buckets = (result.aggregations?.hashes as { buckets: { key: string; doc_count: number }[] })
      .buckets;
    expect(buckets.map((b) => [b.key.length, b.key.slice(0, 5), b.doc_count])).toEqual([
      [12, 'u09tv', 2],
      [12, 'gcpuv', 1],
    ]);
  });
});
