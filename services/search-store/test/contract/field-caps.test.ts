import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

/** ES "Field capabilities API" (yaml: field_caps/10_basic, 20_meta, 50_fieldtype_filter). */
describe('GET|POST /_field_caps', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().indices.create({
      index: 'test1',
      mappings: {
        properties: {
          text: { type: 'text', fields: { raw: { type: 'keyword' } } },
          keyword: { type: 'keyword' },
          number: { type: 'double' },
          misc: { type: 'text' },
          blob: { type: 'binary' },
          object: {
            properties: {
              nested1: { type: 'text', index: false },
              nested2: { type: 'float', doc_values: false },
            },
          },
        },
      },
    });
    await es().indices.create({
      index: 'test2',
      mappings: {
        properties: {
          text: { type: 'text' },
          keyword: { type: 'keyword', meta: { unit: 'ms' } },
          number: { type: 'double' },
          date: { type: 'date' },
          object: { properties: { nested1: { type: 'text' }, nested2: { type: 'float' } } },
        },
      },
    });
    await es().indices.create({
      index: 'test3',
      mappings: {
        properties: {
          text: { type: 'text' },
          keyword: { type: 'keyword' },
          number: { type: 'long' },
          date: { type: 'date' },
          object: {
            properties: {
              nested1: { type: 'long', index: false },
              nested2: { type: 'keyword', doc_values: false },
            },
          },
        },
        runtime: { day: { type: 'keyword', script: { source: "emit('x')" } } },
      },
    });
  });

  it('merges each field by type across indices, listing indices only where they differ', async () => {
    const caps = await es().fieldCaps({
      index: 'test1,test2,test3',
      fields: ['text', 'keyword', 'number', 'date'],
    });
    expect(caps).toEqual({
      indices: ['test1', 'test2', 'test3'],
      fields: {
        date: { date: { type: 'date', metadata_field: false, searchable: true, aggregatable: true } },
        keyword: {
          keyword: {
            type: 'keyword',
            metadata_field: false,
            searchable: true,
            aggregatable: true,
            meta: { unit: ['ms'] },
          },
        },
        number: {
          double: {
            type: 'double',
            metadata_field: false,
            searchable: true,
            aggregatable: true,
            indices: ['test1', 'test2'],
          },
          long: {
            type: 'long',
            metadata_field: false,
            searchable: true,
            aggregatable: true,
            indices: ['test3'],
          },
        },
        text: { text: { type: 'text', metadata_field: false, searchable: true, aggregatable: false } },
      },
    });
  });

  it('matches wildcards, adds parent objects and names the odd indices out', async () => {
    const caps = await es().fieldCaps({ index: 'test1,test2,test3', fields: 'object*' });
    expect(caps.fields).toEqual({
      object: { object: { type: 'object', metadata_field: false, searchable: false, aggregatable: false } },
      'object.nested1': {
        long: {
          type: 'long',
          metadata_field: false,
          searchable: true,
          aggregatable: true,
          indices: ['test3'],
        },
        text: {
          type: 'text',
          metadata_field: false,
          searchable: false,
          aggregatable: false,
          indices: ['test1', 'test2'],
          non_searchable_indices: ['test1'],
        },
      },
      'object.nested2': {
        float: {
          type: 'float',
          metadata_field: false,
          searchable: true,
          aggregatable: false,
          indices: ['test1', 'test2'],
          non_aggregatable_indices: ['test1'],
        },
        keyword: {
          type: 'keyword',
          metadata_field: false,
          searchable: true,
          aggregatable: false,
          indices: ['test3'],
        },
      },
    });
    // A leaf alone still brings its parent object; filters=-parent leaves it out.
    expect(Object.keys((await es().fieldCaps({ index: 'test2', fields: 'object.nested1' })).fields)).toEqual([
      'object',
      'object.nested1',
    ]);
    const noParent = await call(
      server.url,
      'GET',
      '/test2/_field_caps?fields=object.nested1&filters=-parent',
    );
    expect(Object.keys((noParent.json as { fields: object }).fields)).toEqual(['object.nested1']);
  });

  it('reports metadata fields, multi-fields, binary and runtime fields, with filters and types', async () => {
    const caps = await es().fieldCaps({ index: 'test1', fields: '*' });
    expect(caps.fields._id).toEqual({
      _id: { type: '_id', metadata_field: true, searchable: true, aggregatable: false },
    });
    expect(caps.fields._index).toEqual({
      _index: { type: '_index', metadata_field: true, searchable: true, aggregatable: true },
    });
    expect(caps.fields._source?._source).toMatchObject({ searchable: false, aggregatable: false });
    expect(caps.fields['text.raw']).toEqual({
      keyword: { type: 'keyword', metadata_field: false, searchable: true, aggregatable: true },
    });
    expect(caps.fields.blob).toEqual({
      binary: { type: 'binary', metadata_field: false, searchable: false, aggregatable: false },
    });
    const noMeta = await call(server.url, 'GET', '/test1/_field_caps?fields=*&filters=-metadata,-multifield');
    const names = Object.keys((noMeta.json as { fields: object }).fields);
    expect(names).toEqual([
      'blob',
      'keyword',
      'misc',
      'number',
      'object',
      'object.nested1',
      'object.nested2',
      'text',
    ]);
    const onlyMeta = await call(server.url, 'GET', '/test1/_field_caps?fields=_i*&filters=%2Bmetadata');
    expect(Object.keys((onlyMeta.json as { fields: object }).fields)).toEqual(['_id', '_ignored', '_index']);
    const keywords = await call(
      server.url,
      'GET',
      '/test1,test3/_field_caps?fields=*&types=keyword&filters=-metadata',
    );
    expect(Object.keys((keywords.json as { fields: object }).fields)).toEqual([
      'day',
      'keyword',
      'object.nested2',
      'text.raw',
    ]);
    const runtime = await es().fieldCaps({
      index: 'test3',
      fields: ['day', 'extra'],
      runtime_mappings: { extra: { type: 'long', script: { source: 'emit(1)' } } },
    });
    expect(runtime.fields).toEqual({
      day: { keyword: { type: 'keyword', metadata_field: false, searchable: true, aggregatable: true } },
      extra: { long: { type: 'long', metadata_field: false, searchable: true, aggregatable: true } },
    });
  });

  it('lists the indices without a field as unmapped with include_unmapped', async () => {
    const caps = await es().fieldCaps({
      index: 'test1,test2,test3',
      fields: ['text', 'misc'],
      include_unmapped: true,
    });
    expect(caps.fields).toEqual({
      misc: {
        text: {
          type: 'text',
          metadata_field: false,
          searchable: true,
          aggregatable: false,
          indices: ['test1'],
        },
        unmapped: {
          type: 'unmapped',
          metadata_field: false,
          searchable: false,
          aggregatable: false,
          indices: ['test2', 'test3'],
        },
      },
      text: { text: { type: 'text', metadata_field: false, searchable: true, aggregatable: false } },
    });
  });

  it('answers every index for _all, none for unknown fields, and skips closed indices', async () => {
    const all = await call(server.url, 'GET', '/_field_caps?fields=no_such_field');
    expect(all.json).toEqual({ indices: ['test1', 'test2', 'test3'], fields: {} });
    await es().indices.create({ index: 'shut', mappings: { properties: { text: { type: 'keyword' } } } });
    await es().indices.close({ index: 'shut' });
    expect((await call(server.url, 'GET', '/_field_caps?fields=text')).json).toMatchObject({
      indices: ['test1', 'test2', 'test3'],
    });
    const closed = await call(server.url, 'GET', '/shut/_field_caps?fields=text');
    expect(closed.status).toBe(400);
    expect(closed.json).toMatchObject({ error: { type: 'index_closed_exception' } });
    await es().indices.delete({ index: 'shut' });
  });

  it('refuses a request without fields, fields twice, unknown body keys and unknown indices', async () => {
    const none = await call(server.url, 'GET', '/_field_caps');
    expect(none.status).toBe(400);
    expect(none.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason: "Validation Failed: 1: specified fields can't be null or empty;",
      },
    });
    const twice = await call(server.url, 'POST', '/_field_caps?fields=a', { fields: ['b'] });
    expect(twice.status).toBe(400);
    expect(twice.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
    const unknown = await call(server.url, 'POST', '/_field_caps', { fields: ['a'], size: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ error: { type: 'x_content_parse_exception' } });
    expect((unknown.json as { error: { reason: string } }).error.reason).toMatch(
      /\[field_caps_request\] unknown field \[size\]$/,
    );
    const missing = await call(server.url, 'GET', '/nope/_field_caps?fields=*');
    expect(missing.status).toBe(404);
    expect(
      (await call(server.url, 'GET', '/nope/_field_caps?fields=*&ignore_unavailable=true')).json,
    ).toEqual({
      indices: [],
      fields: {},
    });
    expect((await call(server.url, 'GET', '/_field_caps?fields=*&size=1')).status).toBe(400);
    expect((await call(server.url, 'GET', '/_field_caps?fields=*&include_unmapped=maybe')).status).toBe(400);
  });
});
