import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

describe('reindex with a source query, max_docs, source.size and source._source', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const idsIn = async (index: string): Promise<string[]> => {
    const result = await es().search({ index, size: 100 });
    return result.hits.hits.map((h) => h._id!).sort();
  };
  beforeAll(async () => {
    await es().indices.create({
      index: 'books',
      mappings: {
        properties: { tag: { type: 'keyword' }, n: { type: 'integer' }, title: { type: 'text' } },
      },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'books', _id: '1' } },
        { tag: 'a', n: 1, title: 'The quick brown fox', extra: { x: 1, y: 2 } },
        { index: { _index: 'books', _id: '2' } },
        { tag: 'b', n: 2, title: 'A lazy dog', extra: { x: 3, y: 4 } },
        { index: { _index: 'books', _id: '3' } },
        { tag: 'c', n: 3, title: 'Quick thinking', extra: { x: 5, y: 6 } },
        { index: { _index: 'books', _id: '4' } },
        { tag: 'b', n: 4, title: 'Slow going' },
      ],
    });
  });

  it('copies only the documents a bool of range and term matches', async () => {
    const result = await es().reindex({
      source: {
        index: 'books',
        query: { bool: { filter: [{ range: { n: { gte: 2 } } }], must_not: [{ term: { tag: 'c' } }] } },
      },
      dest: { index: 'filtered' },
      refresh: true,
    });
    expect(result).toMatchObject({ total: 2, created: 2, updated: 0, batches: 1, failures: [] });
    expect(await idsIn('filtered')).toEqual(['2', '4']);
  });

  it('copies the documents an analysed match query finds, and terms/exists/prefix select too', async () => {
    const match = await es().reindex({
      source: { index: 'books', query: { match: { title: 'QUICK' } } },
      dest: { index: 'matched' },
      refresh: true,
    });
    expect(match).toMatchObject({ total: 2, created: 2 });
    expect(await idsIn('matched')).toEqual(['1', '3']);
    await es().reindex({
      source: { index: 'books', query: { terms: { tag: ['a', 'c'] } } },
      dest: { index: 'by-terms' },
      refresh: true,
    });
    expect(await idsIn('by-terms')).toEqual(['1', '3']);
    await es().reindex({
      source: { index: 'books', query: { exists: { field: 'extra.x' } } },
      dest: { index: 'by-exists' },
      refresh: true,
    });
    expect(await idsIn('by-exists')).toEqual(['1', '2', '3']);
  });

  it('stops at max_docs and counts batches of source.size', async () => {
    const result = await es().reindex({
      max_docs: 2,
      source: { index: 'books', query: { range: { n: { gte: 2 } } }, size: 1 },
      dest: { index: 'limited' },
      refresh: true,
    });
    expect(result).toMatchObject({ total: 2, created: 2, batches: 2 });
    expect(await idsIn('limited')).toEqual(['2', '3']);
  });

  it('counts op_type create conflicts only among the documents the query matched', async () => {
    await es().index({ index: 'pre', id: '1', document: { tag: 'old' } });
    await es().index({ index: 'pre', id: '2', document: { tag: 'old' }, refresh: true });
    const result = await es().reindex({
      conflicts: 'proceed',
      source: { index: 'books', query: { term: { tag: 'b' } } },
      dest: { index: 'pre', op_type: 'create' },
      refresh: true,
    });
    expect(result).toMatchObject({ total: 2, created: 1, version_conflicts: 1, failures: [] });
    expect(await es().getSource({ index: 'pre', id: '2' })).toEqual({ tag: 'old' });
    expect(await es().getSource({ index: 'pre', id: '4' })).toEqual({ tag: 'b', n: 4, title: 'Slow going' });
  });

  it('keeps only the source._source fields in the copies, their mapping and their index', async () => {
    const result = await es().reindex({
      source: { index: 'books', query: { ids: { values: ['1', '2'] } }, _source: ['tag', 'extra.x'] },
      dest: { index: 'slim' },
      refresh: true,
    });
    expect(result).toMatchObject({ total: 2, created: 2 });
    expect(await es().getSource({ index: 'slim', id: '1' })).toEqual({ tag: 'a', extra: { x: 1 } });
    const mapping = await es().indices.getMapping({ index: 'slim' });
    expect(Object.keys(mapping.slim!.mappings.properties ?? {}).sort()).toEqual(['extra', 'tag']);
    const count = await es().count({ index: 'slim', query: { exists: { field: 'title' } } });
    expect(count.count).toBe(0);
    expect((await es().count({ index: 'slim', query: { term: { 'extra.x': 3 } } })).count).toBe(1);
  });

  it('answers an unknown source query with parsing_exception and copies nothing', async () => {
    const response = await call(server.url, 'POST', '/_reindex', {
      source: { index: 'books', query: { nope: {} } },
      dest: { index: 'never' },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: { type: 'parsing_exception', reason: 'unknown query [nope]' },
      status: 400,
    });
    expect((await call(server.url, 'HEAD', '/never')).status).toBe(404);
  });

  it('refuses max_docs of 0 with action_request_validation_exception', async () => {
    const response = await call(server.url, 'POST', '/_reindex', {
      max_docs: 0,
      source: { index: 'books' },
      dest: { index: 'never' },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason:
          "Validation Failed: 1: maxDocs should be greater than 0 if the request is limited to some number of documents or -1 if it isn't but it was [0];",
      },
    });
  });
});
