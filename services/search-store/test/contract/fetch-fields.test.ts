import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

/**
 * script_fields, stored_fields (`store: true`) and docvalue_fields with formats (ES reference
 * "Retrieve selected fields", YAML tests search/30_limits, search/100_stored_fields), through the
 * official client and raw HTTP, bad input included.
 */
describe('fetch options', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'fetched';
  const search = (body: Record<string, unknown>, path = `/${index}/_search`) =>
    call(server.url, 'POST', path, body);

  beforeAll(async () => {
    server = await startSearchStore();
    await es().indices.create({
      index,
      settings: { 'index.max_script_fields': 4, 'index.max_docvalue_fields_search': 4 },
      mappings: {
        properties: {
          title: { type: 'text', store: true },
          tag: { type: 'keyword', store: true },
          plain: { type: 'keyword' },
          price: { type: 'double', store: true },
          ratio: { type: 'float' },
          count: { type: 'long' },
          day: { type: 'date', store: true },
          stamp: { type: 'date', format: 'yyyy/MM/dd' },
          flag: { type: 'boolean' },
        },
      },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: index, _id: '1' } },
        {
          title: 'Red Fox',
          tag: ['b', 'a', 'b'],
          plain: 'p',
          price: 10.5,
          ratio: 1.1,
          count: 3,
          day: '2024-03-05T10:20:30Z',
          stamp: '2024/01/02',
          flag: true,
        },
        { index: { _index: index, _id: '2' } },
        { title: 'Blue', count: 7 },
      ],
    });
  });
  afterAll(() => server.stop());

  describe('script_fields', () => {
    it('evaluates each script per hit into `fields`, with params and doc values', async () => {
      const res = await es().search({
        index,
        sort: ['_doc'],
        script_fields: {
          twice: { script: { source: "doc['count'].value * params.k", params: { k: 2 } } },
          tags: { script: "doc['tag']" },
          nothing: { script: { source: 'null', lang: 'painless' } },
          title: { script: { source: "params._source.title + '!'" } },
        },
      });
      expect(res.hits.hits.map((h) => [h._id, h.fields, h._source === undefined])).toEqual([
        ['1', { twice: [6], tags: ['a', 'b'], nothing: [null], title: ['Red Fox!'] }, false],
        ['2', { twice: [14], tags: [], nothing: [null], title: ['Blue!'] }, false],
      ]);
    });

    it('answers a runtime failure as ES: 400 search_phase_execution_exception caused by script_exception', async () => {
      const res = await search({ script_fields: { bad: { script: "doc['tag'].value.length()" } } });
      expect(res.status).toBe(400);
      const body = res.json as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({
        type: 'search_phase_execution_exception',
        reason: 'all shards failed',
        root_cause: [{ type: 'script_exception', reason: 'runtime error', lang: 'painless' }],
      });
    });

    it('leaves the field out of the hits whose script fails when ignore_failure is set', async () => {
      const res = await es().search({
        index,
        sort: ['_doc'],
        script_fields: { first: { script: "doc['tag'].value", ignore_failure: true } },
      });
      expect(res.hits.hits.map((h) => h.fields)).toEqual([{ first: ['a'] }, undefined]);
    });

    it('answers a compile error as a script_exception', async () => {
      const res = await search({ script_fields: { bad: { script: { source: '1 +' } } } });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        error: { root_cause: [{ type: 'script_exception', reason: 'compile error' }] },
      });
    });

    it('refuses more script fields than index.max_script_fields, unless size is 0', async () => {
      const fields = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((n) => [n, { script: '1' }]));
      const res = await search({ script_fields: fields });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        error: {
          type: 'search_phase_execution_exception',
          root_cause: [
            {
              type: 'illegal_argument_exception',
              reason:
                'Trying to retrieve too many script_fields. Must be less than or equal to: [4] but was [5]. This limit can be set by changing the [index.max_script_fields] index level setting.',
            },
          ],
        },
      });
      expect((await search({ size: 0, script_fields: fields })).status).toBe(200);
    });

    it.each<[string, unknown, number, string]>([
      ['a stored script id', { s: { script: { id: 'nope' } } }, 404, 'resource_not_found_exception'],
      [
        'another language',
        { s: { script: { source: '1', lang: 'expression' } } },
        400,
        'illegal_argument_exception',
      ],
      ['an unknown key', { s: { script: '1', nope: 1 } }, 400, 'parsing_exception'],
      ['no script', { s: {} }, 400, 'parsing_exception'],
      ['a non-object', { s: 'x' }, 400, 'parsing_exception'],
    ])('refuses %s', async (_, scriptFields, status, type) => {
      const res = await search({ script_fields: scriptFields });
      expect(res.status).toBe(status);
      expect(res.json).toMatchObject({ error: { type } });
    });
  });

  describe('stored_fields', () => {
    it('returns the stored fields asked for, and no _source unless asked', async () => {
      const res = await es().search({
        index,
        sort: ['_doc'],
        stored_fields: ['title', 'tag', 'plain', 'day', 'price'],
      });
      expect(res.hits.hits.map((h) => [h._id, h._source, h.fields])).toEqual([
        [
          '1',
          undefined,
          { title: ['Red Fox'], tag: ['b', 'a', 'b'], day: ['2024-03-05T10:20:30.000Z'], price: [10.5] },
        ],
        ['2', undefined, { title: ['Blue'] }],
      ]);
    });

    it('expands wildcards over stored fields only, and keeps _source when it is asked for', async () => {
      const res = await es().search({ index, sort: ['_doc'], stored_fields: ['t*'], _source: ['count'] });
      expect(res.hits.hits.map((h) => [h._source, h.fields])).toEqual([
        [{ count: 3 }, { title: ['Red Fox'], tag: ['b', 'a', 'b'] }],
        [{ count: 7 }, { title: ['Blue'] }],
      ]);
    });

    it('`_none_` drops _id and _source; [] keeps _id only', async () => {
      const none = await call(server.url, 'GET', `/${index}/_search?stored_fields=_none_&sort=_doc`);
      expect(none.status).toBe(200);
      const hits = (none.json as { hits: { hits: Record<string, unknown>[] } }).hits.hits;
      expect(hits[0]).toEqual({ _index: index, _score: null, sort: [expect.any(Number)] });
      const empty = await es().search({ index, sort: ['_doc'], stored_fields: [] });
      expect(empty.hits.hits[0]).toEqual({
        _index: index,
        _id: '1',
        _score: null,
        sort: [expect.any(Number)],
      });
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      [
        '_none_ with other names',
        { stored_fields: ['_none_', 'title'] },
        'illegal_argument_exception',
        'cannot combine _none_ with other fields',
      ],
      [
        '_none_ with _source',
        { stored_fields: '_none_', _source: true },
        'action_request_validation_exception',
        'Validation Failed: 1: [stored_fields] cannot be disabled if [_source] is requested;',
      ],
      [
        '_none_ with fields',
        { stored_fields: '_none_', fields: ['title'] },
        'action_request_validation_exception',
        'Validation Failed: 1: [stored_fields] cannot be disabled when using the [fields] option;',
      ],
    ])('refuses %s', async (_, body, type, reason) => {
      const { status, body: error } = await failure(es().search({ index, ...body }));
      expect(status).toBe(400);
      expect(error).toMatchObject({ error: { type, reason } });
    });
  });

  describe('stored_fields on GET and _mget', () => {
    it('GET answers the stored fields in `fields` and leaves _source out unless asked', async () => {
      const res = await es().get({ index, id: '1', stored_fields: ['title', 'plain', 'd*'] });
      expect(res).toEqual({
        _index: index,
        _id: '1',
        _version: 1,
        _seq_no: 0,
        _primary_term: 1,
        found: true,
        fields: { title: ['Red Fox'], day: ['2024-03-05T10:20:30.000Z'] },
      });
      const both = await call(server.url, 'GET', `/${index}/_doc/1?stored_fields=tag&_source_includes=count`);
      expect(both.json).toMatchObject({ _source: { count: 3 }, fields: { tag: ['b', 'a', 'b'] } });
      const none = await call(server.url, 'GET', `/${index}/_doc/2?stored_fields=_none_`);
      expect(none.json).toEqual({
        _index: index,
        _id: '2',
        _version: 1,
        _seq_no: 1,
        _primary_term: 1,
        found: true,
      });
    });

    it('_mget takes stored_fields per item and from the URL', async () => {
      const res = await call(server.url, 'POST', `/${index}/_mget?stored_fields=title`, {
        docs: [{ _id: '1' }, { _id: '1', stored_fields: ['price'], _source: ['flag'] }, { _id: '2' }],
      });
      const docs = (res.json as { docs: Record<string, unknown>[] }).docs;
      expect(docs.map((d) => [d._source, d.fields])).toEqual([
        [undefined, { title: ['Red Fox'] }],
        [{ flag: true }, { price: [10.5] }],
        [undefined, { title: ['Blue'] }],
      ]);
      const bad = await call(server.url, 'POST', `/${index}/_mget`, {
        docs: [{ _id: '1', stored_fields: 3 }],
      });
      expect(bad.status).toBe(400);
    });
  });

  describe('docvalue_fields', () => {
    it('answers doc values: keywords sorted and deduplicated, floats as floats, dates in the mapping format', async () => {
      const res = await es().search({
        index,
        query: { ids: { values: ['1'] } },
        _source: false,
        docvalue_fields: ['tag', 'ratio', 'count', 'stamp'],
      });
      expect(res.hits.hits[0]!.fields).toEqual({
        tag: ['a', 'b'],
        ratio: [1.100000023841858],
        count: [3],
        stamp: ['2024/01/02'],
      });
    });

    it('formats dates with a pattern or epoch_millis and numbers with a DecimalFormat pattern', async () => {
      const res = await es().search({
        index,
        query: { ids: { values: ['1'] } },
        _source: false,
        docvalue_fields: [
          { field: 'day', format: 'yyyy-MM-dd' },
          { field: 'stamp', format: 'epoch_millis' },
          { field: 'price', format: '#,##0.00' },
          { field: 'count', format: '0.0' },
        ],
      });
      expect(res.hits.hits[0]!.fields).toEqual({
        day: ['2024-03-05'],
        stamp: ['1704153600000'],
        price: ['10.50'],
        count: ['3.0'],
      });
    });

    it('expands wildcards over the fields with doc values (the text field is skipped)', async () => {
      const res = await es().search({
        index,
        query: { ids: { values: ['1'] } },
        _source: false,
        docvalue_fields: ['t*', 'f*'],
      });
      expect(res.hits.hits[0]!.fields).toEqual({ tag: ['a', 'b'], flag: [true] });
    });

    it('fails on a text field as ES does (fielddata disabled)', async () => {
      const res = await search({ docvalue_fields: ['title'] });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        error: {
          type: 'search_phase_execution_exception',
          root_cause: [
            {
              type: 'illegal_argument_exception',
              reason: expect.stringMatching(
                /^Fielddata is disabled on \[title\] in \[fetched\]\. Text fields are not optimised/,
              ),
            },
          ],
        },
      });
    });

    it.each<[string, unknown[], RegExp]>([
      [
        'too many fields',
        ['tag', 'count', 'ratio', 'price', 'day'],
        /Trying to retrieve too many docvalue_fields\. Must be less than or equal to: \[4\] but was \[5\]/,
      ],
      [
        'a format on a keyword',
        [{ field: 'tag', format: 'x' }],
        /Field \[tag\] of type \[keyword\] doesn't support formats\./,
      ],
    ])('refuses %s', async (_, docvalueFields, reason) => {
      const res = await search({ docvalue_fields: docvalueFields });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        error: {
          root_cause: [{ type: 'illegal_argument_exception', reason: expect.stringMatching(reason) }],
        },
      });
    });

    it('refuses use_field_mapping as an unknown key, as ES 8 does', async () => {
      const res = await search({ docvalue_fields: [{ field: 'count', use_field_mapping: true }] });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { type: 'parsing_exception' } });
    });

    it('takes docvalue_fields and stored_fields from the URL', async () => {
      const res = await call(
        server.url,
        'GET',
        `/${index}/_search?q=count:3&docvalue_fields=count&stored_fields=tag`,
      );
      const hit = (res.json as { hits: { hits: Record<string, unknown>[] } }).hits.hits[0]!;
      expect(hit.fields).toEqual({ tag: ['b', 'a', 'b'], count: [3] });
      expect(hit._source).toBeUndefined();
    });
  });
});
