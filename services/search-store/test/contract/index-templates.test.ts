import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

/** Composable index templates and component templates (ES "Index templates"), issue 20. */
describe('index and component templates', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);

  it('stores, lists and deletes an index template through the client', async () => {
    await es().indices.putIndexTemplate({
      name: 'basic',
      index_patterns: 'basic-*',
      template: {
        settings: { number_of_shards: 1, number_of_replicas: 0 },
        mappings: { properties: { field: { type: 'keyword' } } },
        aliases: { a1: {}, a2: { routing: 'b' }, a3: { filter: { term: { user: 'kimchy' } } } },
      },
      version: 3,
      _meta: { owner: 'me' },
    });
    const got = await es().indices.getIndexTemplate({ name: 'basic' });
    expect(got.index_templates).toEqual([
      {
        name: 'basic',
        index_template: {
          index_patterns: ['basic-*'],
          template: {
            settings: { index: { number_of_shards: '1', number_of_replicas: '0' } },
            mappings: { properties: { field: { type: 'keyword' } } },
            aliases: {
              a1: {},
              a2: { index_routing: 'b', search_routing: 'b' },
              a3: { filter: { term: { user: 'kimchy' } } },
            },
          },
          composed_of: [],
          version: 3,
          _meta: { owner: 'me' },
        },
      },
    ]);
    expect(await es().indices.existsIndexTemplate({ name: 'basic' })).toBe(true);
    expect(await es().indices.existsIndexTemplate({ name: 'nope' })).toBe(false);
    const flat = await call(server.url, 'GET', '/_index_template/basic?flat_settings=true');
    expect(flat.json).toMatchObject({
      index_templates: [{ index_template: { template: { settings: { 'index.number_of_shards': '1' } } } }],
    });
    await es().indices.deleteIndexTemplate({ name: 'basic' });
    const missing = await call(server.url, 'GET', '/_index_template/basic');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: { type: 'resource_not_found_exception', reason: 'index template matching [basic] not found' },
      status: 404,
    });
  });

  it('lists with a wildcard (matching nothing: an empty list); deletes comma lists', async () => {
    for (const name of ['w-foo', 'w-bar', 'other']) {
      await es().indices.putIndexTemplate({ name, index_patterns: [`${name}-*`] });
    }
    const names = async (path: string) =>
      (
        (await call(server.url, 'GET', path)).json as { index_templates: { name: string }[] }
      ).index_templates.map((t) => t.name);
    expect(await names('/_index_template/w-*')).toEqual(['w-bar', 'w-foo']);
    // One name or pattern, as ES's transport action: a comma list is a name no template has.
    const list = await call(server.url, 'GET', '/_index_template/other,w-foo');
    expect(list.status).toBe(404);
    expect(list.json).toMatchObject({ error: { reason: 'index template matching [other,w-foo] not found' } });
    expect(await names('/_index_template/zz*')).toEqual([]);
    expect(await names('/_index_template')).toEqual(expect.arrayContaining(['other', 'w-bar', 'w-foo']));
    // DELETE of a comma list names exact templates, all of which must exist.
    const partly = await call(server.url, 'DELETE', '/_index_template/w-foo,nope');
    expect(partly.status).toBe(404);
    expect(partly.json).toMatchObject({
      error: { type: 'index_template_missing_exception', reason: 'index_template [nope] missing' },
    });
    expect(await names('/_index_template/w-*')).toEqual(['w-bar', 'w-foo']);
    await es().indices.deleteIndexTemplate({ name: 'w-*' });
    expect(await names('/_index_template/w-*')).toEqual([]);
    expect((await call(server.url, 'DELETE', '/_index_template/*')).status).toBe(200);
    expect((await call(server.url, 'DELETE', '/_index_template/*')).status).toBe(200);
  });

  it('composes component templates, the index template and the request, as ES 15_composition.yml', async () => {
    await es().cluster.putComponentTemplate({
      name: 'ct_low',
      template: {
        settings: { number_of_replicas: 1 },
        mappings: { properties: { field1: { type: 'text' } } },
        aliases: { aliasname: { is_write_index: false } },
      },
    });
    await es().cluster.putComponentTemplate({
      name: 'ct_high',
      template: {
        settings: { 'index.number_of_replicas': 0 },
        mappings: { properties: { field2: { type: 'keyword' } } },
        aliases: { aliasname: { is_write_index: true } },
      },
    });
    await es().indices.putIndexTemplate({
      name: 'my-template',
      index_patterns: ['foo', 'bar-*'],
      template: {
        settings: { 'index.number_of_shards': 2 },
        mappings: { properties: { field3: { type: 'integer' } } },
        aliases: { my_alias: {}, aliasname: { filter: { match_all: {} } } },
      },
      composed_of: ['ct_low', 'ct_high'],
      priority: 400,
    });
    await es().indices.create({
      index: 'bar-baz',
      settings: { 'index.priority': 17 },
      mappings: { properties: { foo: { type: 'keyword' } } },
      aliases: { other: {} },
    });
    const got = (await es().indices.get({ index: 'bar-baz' }))['bar-baz']!;
    expect(got.settings?.index).toMatchObject({
      number_of_shards: '2',
      number_of_replicas: '0',
      priority: '17',
    });
    expect(got.mappings?.properties).toEqual({
      field1: { type: 'text' },
      field2: { type: 'keyword' },
      field3: { type: 'integer' },
      foo: { type: 'keyword' },
    });
    expect(got.aliases).toEqual({ aliasname: { filter: { match_all: {} } }, my_alias: {}, other: {} });

    // A higher priority template wins.
    await es().indices.putIndexTemplate({
      name: 'another-template',
      index_patterns: ['bar-*'],
      template: { settings: { 'index.number_of_shards': 3 } },
      priority: 405,
    });
    await es().indices.create({ index: 'bar-two' });
    const two = (await es().indices.get({ index: 'bar-two' }))['bar-two']!;
    expect(two.settings?.index?.number_of_shards).toBe('3');
    expect(two.mappings?.properties).toBeUndefined();

    // A component template in use is not removed.
    const inUse = await failure(es().cluster.deleteComponentTemplate({ name: 'ct_low' }));
    expect(inUse.status).toBe(400);
    expect(inUse.body).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason:
          'component templates [ct_low] cannot be removed as they are still in use by index templates [my-template]',
      },
    });
    await es().indices.deleteIndexTemplate({ name: 'my-template,another-template' });
    await es().cluster.deleteComponentTemplate({ name: 'ct_low,ct_high' });
  });

  it('merges dotted and nested mappings, later definitions replacing a leaf whole', async () => {
    await es().cluster.putComponentTemplate({
      name: 'red',
      template: {
        mappings: { properties: { 'object1.red': { type: 'keyword' }, 'object2.red': { type: 'keyword' } } },
      },
    });
    await es().cluster.putComponentTemplate({
      name: 'blue',
      template: {
        mappings: {
          properties: {
            'object2.red': { type: 'text' },
            'object1.blue': { type: 'text' },
            'object2.blue': { type: 'text' },
          },
        },
      },
    });
    await es().indices.putIndexTemplate({
      name: 'purple',
      index_patterns: ['purple-index'],
      composed_of: ['red', 'blue'],
      template: {
        mappings: {
          properties: { 'object2.blue': { type: 'integer' }, 'object1.purple': { type: 'integer' } },
        },
      },
    });
    await es().indices.create({
      index: 'purple-index',
      mappings: { properties: { 'object3.purple': { type: 'double' } } },
    });
    const props = (await es().indices.get({ index: 'purple-index' }))['purple-index']!.mappings!.properties!;
    expect(props).toEqual({
      object1: {
        properties: { red: { type: 'keyword' }, blue: { type: 'text' }, purple: { type: 'integer' } },
      },
      object2: { properties: { red: { type: 'text' }, blue: { type: 'integer' } } },
      object3: { properties: { purple: { type: 'double' } } },
    });
    await es().indices.deleteIndexTemplate({ name: 'purple' });
    await es().cluster.deleteComponentTemplate({ name: 'red,blue' });
  });

  it('applies the template on auto-create by index and bulk, and honours allow_auto_create', async () => {
    await es().indices.putIndexTemplate({
      name: 'auto',
      index_patterns: ['auto-*'],
      template: { mappings: { properties: { n: { type: 'keyword' } } }, aliases: { 'auto-alias': {} } },
    });
    await es().index({ index: 'auto-1', id: '1', document: { n: 5 } });
    const mapping = await es().indices.getMapping({ index: 'auto-1' });
    expect(mapping['auto-1']?.mappings.properties).toEqual({ n: { type: 'keyword' } });
    expect(await es().indices.existsAlias({ name: 'auto-alias', index: 'auto-1' })).toBe(true);
    const bulk = await es().bulk({ operations: [{ index: { _index: 'auto-2', _id: '1' } }, { n: 1 }] });
    expect(bulk.errors).toBe(false);
    expect((await es().indices.getMapping({ index: 'auto-2' }))['auto-2']?.mappings.properties).toEqual({
      n: { type: 'keyword' },
    });

    await es().indices.putIndexTemplate({
      name: 'closed',
      index_patterns: ['closed-*'],
      allow_auto_create: false,
    });
    const refused = await failure(es().index({ index: 'closed-1', document: { a: 1 } }));
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({
      error: {
        type: 'index_not_found_exception',
        reason: 'no such index [composable template [closed-*] forbids index auto creation]',
      },
    });
    expect(await es().indices.exists({ index: 'closed-1' })).toBe(false);
    // An explicit create is not an auto-create.
    await es().indices.create({ index: 'closed-2' });

    await es().cluster.putSettings({ persistent: { 'action.auto_create_index': 'false' } });
    try {
      await es().indices.putIndexTemplate({
        name: 'open',
        index_patterns: ['open-*'],
        allow_auto_create: true,
      });
      await es().index({ index: 'open-1', document: { a: 1 } });
      expect(await es().indices.exists({ index: 'open-1' })).toBe(true);
      expect((await failure(es().index({ index: 'shut-1', document: { a: 1 } }))).status).toBe(404);
    } finally {
      await es().cluster.putSettings({ persistent: { 'action.auto_create_index': null } });
    }
  });

  it('applies the template to a reindex destination', async () => {
    await es().indices.putIndexTemplate({
      name: 'dest',
      index_patterns: ['dest-*'],
      template: { mappings: { properties: { n: { type: 'keyword' } } } },
    });
    await es().index({ index: 'src', id: '1', document: { n: 5 }, refresh: true });
    await es().reindex({ source: { index: 'src' }, dest: { index: 'dest-1' }, refresh: true });
    expect((await es().indices.getMapping({ index: 'dest-1' }))['dest-1']?.mappings.properties).toEqual({
      n: { type: 'keyword' },
    });
  });

  it('refuses overlapping patterns at equal priority, create=true on an existing name, missing components', async () => {
    await es().indices.putIndexTemplate({ name: 'ov1', index_patterns: ['ov-*'], priority: 7 });
    const overlap = await failure(
      es().indices.putIndexTemplate({ name: 'ov2', index_patterns: ['ov-a*', 'zz'], priority: 7 }),
    );
    expect(overlap).toEqual({
      status: 400,
      body: {
        error: {
          root_cause: [expect.objectContaining({ type: 'illegal_argument_exception' })],
          type: 'illegal_argument_exception',
          reason:
            'index template [ov2] has index patterns [ov-a*, zz] matching patterns from existing templates [ov1] with patterns (ov1 => [ov-*]) that have the same priority [7], multiple index templates may not match during index creation, please use a different priority',
        },
        status: 400,
      },
    });
    // Another priority, or patterns that cannot meet, are fine.
    await es().indices.putIndexTemplate({ name: 'ov2', index_patterns: ['ov-a*'], priority: 8 });
    await es().indices.putIndexTemplate({ name: 'ov3', index_patterns: ['ow-*'], priority: 7 });
    // Re-putting a template does not overlap with itself.
    await es().indices.putIndexTemplate({ name: 'ov1', index_patterns: ['ov-*'], priority: 7 });

    const exists = await failure(
      es().indices.putIndexTemplate({ name: 'ov1', create: true, index_patterns: ['x'] }),
    );
    expect(exists.status).toBe(400);
    expect(exists.body).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'index template [ov1] already exists' },
    });
    await es().cluster.putComponentTemplate({ name: 'ct', template: {} });
    const ctExists = await failure(
      es().cluster.putComponentTemplate({ name: 'ct', create: true, template: {} }),
    );
    expect(ctExists.body).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'component template [ct] already exists' },
    });

    const missing = await failure(
      es().indices.putIndexTemplate({ name: 'm', index_patterns: ['m-*'], composed_of: ['ct', 'nope'] }),
    );
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error: {
        type: 'invalid_index_template_exception',
        reason:
          'index_template [m] invalid, cause [index template [m] specifies component templates [nope] that do not exist]',
      },
    });
  });

  it('validates the body, the name, the settings and the mappings at PUT time', async () => {
    const put = (path: string, body: unknown) => call(server.url, 'PUT', path, body);
    const noPatterns = await put('/_index_template/t', {});
    expect(noPatterns.status).toBe(400);
    expect(noPatterns.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'Required [index_patterns]' },
    });

    const typo = await put('/_index_template/t', { index_patterns: ['t'], priorty: 3 });
    expect(typo.status).toBe(400);
    expect(typo.json).toMatchObject({
      error: {
        type: 'x_content_parse_exception',
        reason: expect.stringMatching(
          /\[index_template\] unknown field \[priorty\] did you mean \[priority\]\?$/,
        ),
      },
    });
    const innerTypo = await put('/_component_template/c', { template: { setings: {} } });
    expect(innerTypo.json).toMatchObject({
      error: {
        type: 'x_content_parse_exception',
        reason: expect.stringMatching(/\[template\] unknown field \[setings\] did you mean \[settings\]\?$/),
      },
    });

    const dataStream = await put('/_index_template/t', { index_patterns: ['t'], data_stream: {} });
    expect(dataStream.status).toBe(400);
    expect(dataStream.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: expect.stringContaining('[data_stream] is not supported'),
      },
    });

    const ignoreMissing = await put('/_index_template/t', {
      index_patterns: ['t'],
      ignore_missing_component_templates: ['x'],
    });
    expect(ignoreMissing.status).toBe(400);
    expect(ignoreMissing.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: '[ignore_missing_component_templates] is not supported',
      },
    });

    const badName = await put('/_index_template/Bad%20Name', { index_patterns: ['_x', 'a b'] });
    expect(badName.status).toBe(400);
    expect(badName.json).toMatchObject({
      error: {
        type: 'invalid_index_template_exception',
        reason: expect.stringMatching(
          /^index_template \[Bad Name\] invalid, cause \[Validation Failed: 1: name must not contain a space;2: name must be lower cased;3: index_pattern \[_x\] must not start with '_';4: index_patterns \[a b\] must not contain a space;/,
        ),
      },
    });

    const badSetting = await put('/_index_template/t', {
      index_patterns: ['t'],
      template: { settings: { foo: 1 } },
    });
    expect(badSetting.json).toMatchObject({
      error: {
        type: 'invalid_index_template_exception',
        reason:
          'index_template [t] invalid, cause [Validation Failed: 1: unknown setting [index.foo] please check that any required plugins are installed, or check the breaking changes documentation for removed settings;]',
      },
    });

    const badMapping = await put('/_index_template/t', {
      index_patterns: ['t'],
      template: { mappings: { properties: { f: { type: 'nope' } } } },
    });
    expect(badMapping.status).toBe(400);
    expect(badMapping.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'composable template [t] template after composition is invalid',
        caused_by: {
          type: 'mapper_parsing_exception',
          reason: 'Failed to parse mapping: No handler for type [nope] declared on field [f]',
        },
      },
    });
    const badComponentMapping = await put('/_component_template/c', {
      template: { mappings: { properties: { f: { type: 'nope' } } } },
    });
    expect(badComponentMapping.json).toMatchObject({
      error: {
        type: 'mapper_parsing_exception',
        reason: 'Failed to parse mapping: No handler for type [nope] declared on field [f]',
      },
    });
    const badComponentSetting = await put('/_component_template/c', {
      template: { settings: { 'index.number_of_shards': 0 } },
    });
    expect(badComponentSetting.status).toBe(400);
    expect(badComponentSetting.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
    // Nothing invalid was stored.
    expect((await call(server.url, 'GET', '/_index_template/t')).status).toBe(404);
    expect((await call(server.url, 'GET', '/_component_template/c')).status).toBe(404);
  });

  it('answers component template CRUD as ES cluster.component_template/10_basic.yml', async () => {
    await es().cluster.putComponentTemplate({
      name: 'test',
      template: {
        settings: { number_of_shards: 1, number_of_replicas: 0 },
        mappings: { properties: { field: { type: 'keyword' } } },
        aliases: { aliasname: {} },
      },
      version: 2,
      _meta: { foo: 'bar', baz: { eggplant: true } },
    });
    const got = await es().cluster.getComponentTemplate({ name: 'test' });
    expect(got.component_templates).toEqual([
      {
        name: 'test',
        component_template: {
          template: {
            settings: { index: { number_of_shards: '1', number_of_replicas: '0' } },
            mappings: { properties: { field: { type: 'keyword' } } },
            aliases: { aliasname: {} },
          },
          version: 2,
          _meta: { foo: 'bar', baz: { eggplant: true } },
        },
      },
    ]);
    expect(await es().cluster.existsComponentTemplate({ name: 'test' })).toBe(true);
    await es().cluster.deleteComponentTemplate({ name: 'test' });
    const gone = await call(server.url, 'GET', '/_component_template/test');
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({
      error: { type: 'resource_not_found_exception', reason: 'component template matching [test] not found' },
    });
    const del = await call(server.url, 'DELETE', '/_component_template/test');
    expect(del.status).toBe(404);
    expect(del.json).toMatchObject({ error: { type: 'resource_not_found_exception', reason: 'test' } });
    expect(await es().cluster.existsComponentTemplate({ name: 'test' })).toBe(false);
  });

  it('simulates the template an index would get', async () => {
    await es().cluster.putComponentTemplate({
      name: 'sim-ct',
      template: { settings: { number_of_replicas: 0 } },
    });
    await es().indices.putIndexTemplate({
      name: 'sim',
      index_patterns: ['sim-*'],
      composed_of: ['sim-ct'],
      priority: 2,
      template: { mappings: { properties: { b: { type: 'keyword' } } }, aliases: { s: {} } },
    });
    await es().indices.putIndexTemplate({ name: 'sim-low', index_patterns: ['sim-*'], priority: 1 });
    const simulated = await es().indices.simulateIndexTemplate({ name: 'sim-1' });
    expect(simulated).toEqual({
      template: {
        settings: { index: { number_of_replicas: '0' } },
        mappings: { properties: { b: { type: 'keyword' } } },
        aliases: { s: {} },
      },
      overlapping: [{ name: 'sim-low', index_patterns: ['sim-*'] }],
    });
    expect((await call(server.url, 'POST', '/_index_template/_simulate_index/nothing-matches')).json).toEqual(
      {},
    );
    const byName = await call(server.url, 'POST', '/_index_template/_simulate/sim');
    expect(byName.json).toMatchObject({
      template: { aliases: { s: {} } },
      overlapping: [{ name: 'sim-low' }],
    });
    expect((await call(server.url, 'POST', '/_index_template/_simulate/none')).status).toBe(404);
  });

  it('keeps global templates off hidden indices and refuses a global template that hides', async () => {
    await es().indices.putIndexTemplate({
      name: 'global',
      index_patterns: ['*'],
      priority: 9001,
      template: { mappings: { properties: { g: { type: 'keyword' } } } },
    });
    try {
      await es().indices.create({ index: '.dotted' });
      expect((await es().indices.getMapping({ index: '.dotted' }))['.dotted']?.mappings.properties).toEqual({
        g: { type: 'keyword' },
      });
      await es().indices.create({ index: 'hidden-one', settings: { 'index.hidden': true } });
      expect(
        (await es().indices.getMapping({ index: 'hidden-one' }))['hidden-one']?.mappings.properties,
      ).toBeUndefined();
      await es().cluster.putComponentTemplate({
        name: 'hider',
        template: { settings: { 'index.hidden': true } },
      });
      const refused = await failure(
        es().indices.putIndexTemplate({
          name: 'global2',
          index_patterns: ['*'],
          priority: 2,
          composed_of: ['hider'],
        }),
      );
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: {
          type: 'invalid_index_template_exception',
          reason:
            'index_template [global2] invalid, cause [global composable templates may not specify the setting index.hidden]',
        },
      });
      await es().cluster.deleteComponentTemplate({ name: 'hider' });
      await es().cluster.putComponentTemplate({ name: 'later', template: {} });
      await es().indices.putIndexTemplate({
        name: 'global3',
        index_patterns: ['*'],
        priority: 9003,
        composed_of: ['later'],
      });
      const update = await failure(
        es().cluster.putComponentTemplate({
          name: 'later',
          template: { settings: { 'index.hidden': true } },
        }),
      );
      expect(update.body).toMatchObject({
        error: {
          type: 'illegal_argument_exception',
          reason:
            'cannot update component template [later] because the following global templates would resolve to specifying the [index.hidden] setting: [global3]',
        },
      });
      await es().indices.deleteIndexTemplate({ name: 'global3' });
      await es().cluster.deleteComponentTemplate({ name: 'later' });
    } finally {
      await es().indices.deleteIndexTemplate({ name: 'global' });
    }
  });

  it('answers the legacy _template API as an ES 8 node without legacy templates', async () => {
    expect((await call(server.url, 'GET', '/_template')).json).toEqual({});
    expect((await call(server.url, 'GET', '/_template/x*')).status).toBe(200);
    expect((await call(server.url, 'GET', '/_template/x')).status).toBe(404);
    const put = await call(server.url, 'PUT', '/_template/x', { index_patterns: ['x'] });
    expect(put.status).toBe(400);
    expect(put.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: expect.stringContaining('/_index_template') },
    });
    const del = await call(server.url, 'DELETE', '/_template/x');
    expect(del.json).toMatchObject({
      error: { type: 'index_template_missing_exception', reason: 'index_template [x] missing' },
      status: 404,
    });
  });

  it('refuses unknown URL parameters with ES "did you mean", storing nothing', async () => {
    const typo = await call(server.url, 'PUT', '/_index_template/p?creat=true', { index_patterns: ['p'] });
    expect(typo.status).toBe(400);
    expect(typo.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason:
          'request [/_index_template/p] contains unrecognized parameter: [creat] -> did you mean [create]?',
      },
    });
    expect((await call(server.url, 'GET', '/_index_template/p')).status).toBe(404);
    const get = await call(server.url, 'GET', '/_component_template?flat=true');
    expect(get.status).toBe(400);
  });

  it('is seen by every instance: the templates live in Postgres', async () => {
    const { rows } = await server.pool.query<{ name: string }>(
      'SELECT name FROM index_templates ORDER BY name',
    );
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['auto', 'closed', 'sim']));
  });
});
