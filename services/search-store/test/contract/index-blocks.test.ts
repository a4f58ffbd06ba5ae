import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

const FLOOD =
  'disk usage exceeded flood-stage watermark, index has read-only-allow-delete block; for more information, see https://www.elastic.co/guide/en/elasticsearch/reference/8.17/fix-watermark-errors.html';

const blocked = (reason: string, status = 403) => ({
  status,
  body: {
    error: {
      root_cause: [{ type: 'cluster_block_exception', reason }],
      type: 'cluster_block_exception',
      reason,
    },
    status,
  },
});

/** ES "Index block settings": which operations each `index.blocks.*` refuses, and with what. */
describe('index blocks (metadata, read_only, read_only_allow_delete)', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const mappingOf = async (index: string) => (await es().indices.getMapping({ index }))[index]?.mappings;

  it('index.blocks.metadata refuses mapping, settings and alias reads and changes and index deletion, not documents', async () => {
    await es().indices.create({ index: 'meta', mappings: { properties: { a: { type: 'keyword' } } } });
    await es().indices.putSettings({ index: 'meta', settings: { 'index.blocks.metadata': true } });
    const reason = 'index [meta] blocked by: [FORBIDDEN/9/index metadata (api)];';
    expect(
      await failure(es().indices.putMapping({ index: 'meta', properties: { b: { type: 'long' } } })),
    ).toEqual(blocked(reason));
    expect(await failure(es().indices.getMapping({ index: 'meta' }))).toEqual(blocked(reason));
    expect(await failure(es().indices.getSettings({ index: 'meta' }))).toEqual(blocked(reason));
    expect(
      await failure(es().indices.putSettings({ index: 'meta', settings: { number_of_replicas: 0 } })),
    ).toEqual(blocked(reason));
    expect(
      await failure(es().indices.updateAliases({ actions: [{ add: { index: 'meta', alias: 'meta-a' } }] })),
    ).toEqual(blocked(reason));
    expect(await failure(es().indices.putAlias({ index: 'meta', name: 'meta-b' }))).toEqual(blocked(reason));
    expect(await failure(es().indices.getAlias())).toEqual(blocked(reason));
    expect(await failure(es().indices.get({ index: 'meta' }))).toEqual(blocked(reason));
    expect((await call(server.url, 'HEAD', '/meta')).status).toBe(403);
    expect(await failure(es().indices.delete({ index: 'meta' }))).toEqual(blocked(reason));
    // Documents are data, not metadata: writes and searches go on.
    await es().index({ index: 'meta', id: '1', document: { a: 'x' }, refresh: true });
    expect((await es().search({ index: 'meta' })).hits.hits.map((h) => h._id)).toEqual(['1']);
    // Lifting the block alone is allowed; then nothing refused earlier has happened.
    await es().indices.putSettings({ index: 'meta', settings: { 'index.blocks.metadata': false } });
    expect(await mappingOf('meta')).toEqual({ properties: { a: { type: 'keyword' } } });
    expect(await es().indices.getAlias({ index: 'meta' })).toEqual({ meta: { aliases: {} } });
    const settings = await es().indices.getSettings({ index: 'meta', flat_settings: true });
    expect(settings.meta?.settings?.['index.number_of_replicas']).toBe('1');
  });

  it('index.blocks.read_only refuses writes, metadata changes and deletion but lets metadata be read', async () => {
    await es().index({ index: 'ro', id: '1', document: { a: 1 }, refresh: true });
    await es().indices.putSettings({ index: 'ro', settings: { 'index.blocks.read_only': true } });
    const reason = 'index [ro] blocked by: [FORBIDDEN/5/index read-only (api)];';
    expect(await failure(es().index({ index: 'ro', id: '2', document: { a: 2 } }))).toEqual(blocked(reason));
    expect(await failure(es().delete({ index: 'ro', id: '1' }))).toEqual(blocked(reason));
    expect(
      await failure(es().indices.putMapping({ index: 'ro', properties: { b: { type: 'long' } } })),
    ).toEqual(blocked(reason));
    expect(
      await failure(es().indices.putSettings({ index: 'ro', settings: { 'index.blocks.write': true } })),
    ).toEqual(blocked(reason));
    expect(await failure(es().indices.delete({ index: 'ro' }))).toEqual(blocked(reason));
    expect(await mappingOf('ro')).toEqual({ properties: { a: { type: 'long' } } });
    const bulk = await es().bulk({ operations: [{ index: { _index: 'ro', _id: '3' } }, { a: 3 }] });
    expect(bulk.items[0]?.index).toMatchObject({
      status: 403,
      error: { type: 'cluster_block_exception', reason },
    });
    expect((await es().count({ index: 'ro' })).count).toBe(1);
    // A request that touches read_only passes the block, even with other settings in it.
    await es().indices.putSettings({
      index: 'ro',
      settings: { 'index.blocks.read_only': false, 'index.number_of_replicas': 0 },
    });
    await es().index({ index: 'ro', id: '2', document: { a: 2 } });
  });

  it('index.blocks.read_only_allow_delete answers 429 for writes only, and still lets the index go', async () => {
    await es().index({ index: 'flood', id: '1', document: { a: 1 } });
    await es().indices.putSettings({
      index: 'flood',
      settings: { 'index.blocks.read_only_allow_delete': true },
    });
    const reason = `index [flood] blocked by: [TOO_MANY_REQUESTS/12/${FLOOD}];`;
    const write = await call(server.url, 'PUT', '/flood/_doc/2', { a: 2 });
    expect({ status: write.status, body: write.json }).toEqual(blocked(reason, 429));
    expect(await es().exists({ index: 'flood', id: '2' })).toBe(false);
    // Metadata stays writable so that replicas or allocation can be changed to free disk (ES #81781).
    await es().indices.putMapping({ index: 'flood', properties: { b: { type: 'keyword' } } });
    await es().indices.putSettings({ index: 'flood', settings: { number_of_replicas: 0 } });
    await es().indices.delete({ index: 'flood' });
    expect(await es().indices.exists({ index: 'flood' })).toBe(false);
  });

  it('names every blocked index and each of its blocks; 403 wins over 429', async () => {
    await es().indices.create({ index: 'two-a' });
    await es().indices.create({ index: 'two-b' });
    await es().indices.putSettings({
      index: 'two-a',
      settings: { 'index.blocks.read_only': true, 'index.blocks.metadata': true },
    });
    await es().indices.putSettings({ index: 'two-b', settings: { 'index.blocks.metadata': true } });
    const refused = await call(server.url, 'PUT', '/two-a,two-b/_mapping', {
      properties: { c: { type: 'long' } },
    });
    expect({ status: refused.status, body: refused.json }).toEqual(
      blocked(
        'index [two-a] blocked by: [FORBIDDEN/5/index read-only (api), FORBIDDEN/9/index metadata (api)];' +
          'index [two-b] blocked by: [FORBIDDEN/9/index metadata (api)];',
      ),
    );
    // Setting only index.blocks.metadata passes the metadata blocks (TransportUpdateSettingsAction).
    await es().indices.putSettings({ index: 'two-b', settings: { 'index.blocks.metadata': false } });
    expect(await mappingOf('two-b')).toEqual({});
    await es().indices.putSettings({
      index: 'two-b',
      settings: { 'index.blocks.write': true, 'index.blocks.read_only_allow_delete': true },
    });
    const write = await call(server.url, 'PUT', '/two-b/_doc/1', { a: 1 });
    expect({ status: write.status, body: write.json }).toEqual(
      blocked(
        `index [two-b] blocked by: [FORBIDDEN/8/index write (api), TOO_MANY_REQUESTS/12/${FLOOD}];`,
        403,
      ),
    );
  });

  it('index.blocks.read refuses a reindex from the index with 403 and creates no destination', async () => {
    await es().index({ index: 'unread', id: '1', document: { a: 1 }, refresh: true });
    await es().indices.putSettings({ index: 'unread', settings: { 'index.blocks.read': true } });
    expect(
      await failure(es().reindex({ source: { index: 'unread' }, dest: { index: 'unread-copy' } })),
    ).toEqual(blocked('index [unread] blocked by: [FORBIDDEN/7/index read (api)];'));
    expect(await es().indices.exists({ index: 'unread-copy' })).toBe(false);
    await es().indices.putSettings({ index: 'unread', settings: { 'index.blocks.read': false } });
    const copied = await es().reindex({
      source: { index: 'unread' },
      dest: { index: 'unread-copy' },
      refresh: true,
    });
    expect(copied.created).toBe(1);
  });
});
