import { useSearchStore } from '../support/use-search-store';
import { client9 } from '../support/http';

describe('the official v9 client end to end', () => {
  const server = useSearchStore();

  it('creates, writes, reads, updates, aliases, catalogs and deletes without noticing anything', async () => {
    const es = client9(server.url);
    await es.indices.create({ index: 'v9', mappings: { properties: { title: { type: 'text' } } } });
    await es.index({ index: 'v9', id: '1', document: { title: 'first' }, refresh: true });
    expect(await es.get({ index: 'v9', id: '1' })).toMatchObject({
      found: true,
      _source: { title: 'first' },
    });
    await es.update({ index: 'v9', id: '1', doc: { extra: 1 } });
    expect(await es.getSource({ index: 'v9', id: '1' })).toEqual({ title: 'first', extra: 1 });
    await es.indices.putAlias({ index: 'v9', name: 'v9-alias' });
    expect(await es.indices.getAlias({ name: 'v9-alias' })).toEqual({ v9: { aliases: { 'v9-alias': {} } } });
    expect(await es.indices.getMapping({ index: 'v9-alias' })).toEqual({
      v9: { mappings: { properties: { extra: { type: 'long' }, title: { type: 'text' } } } },
    });
    const cat = await es.cat.indices({ index: 'v9', h: 'index,docs.count', v: true });
    // index is padded to 5, docs.count right-aligned to 10
    expect(cat).toBe(`index docs.count\nv9    ${' '.repeat(9)}1\n`);
    const catJson = await es.cat.indices({ index: 'v9', h: 'index,docs.count', format: 'json' });
    expect(catJson).toEqual([{ index: 'v9', 'docs.count': '1' }]);
    expect(await es.delete({ index: 'v9', id: '1' })).toMatchObject({ result: 'deleted' });
    expect(await es.indices.delete({ index: 'v9' })).toEqual({ acknowledged: true });
    expect(await es.indices.exists({ index: 'v9' })).toBe(false);
  });
});
