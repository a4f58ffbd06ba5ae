import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

// ES "Flush API" and "Force merge API": valid no-ops here, answering the broadcast `_shards`.
describe('_flush and _forcemerge', () => {
  const server = useSearchStore();
  beforeAll(async () => {
    const es = client8(server.url);
    await es.indices.create({ index: 'm-1', settings: { number_of_replicas: 0 } });
    await es.indices.create({ index: 'm-2', settings: { number_of_replicas: 1 } });
    await es.index({ index: 'm-1', id: '1', document: { t: 'kept' } });
  });

  it.each([
    ['POST', '/_flush', 3, 2],
    ['GET', '/_flush', 3, 2],
    ['POST', '/m-1/_flush?force=true&wait_if_ongoing=false', 1, 1],
    ['GET', '/m-*/_flush', 3, 2],
    ['POST', '/_forcemerge', 3, 2],
    ['POST', '/m-2/_forcemerge?max_num_segments=1', 2, 1],
    ['POST', '/m-1,m-2/_forcemerge?only_expunge_deletes=true&flush=false', 3, 2],
  ])('%s %s answers _shards total %d, successful %d', async (method, path, total, successful) => {
    const response = await call(server.url, method, path);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ _shards: { total, successful, failed: 0 } });
  });

  it('changes nothing: the document is still there and searchable', async () => {
    expect((await call(server.url, 'POST', '/m-1/_forcemerge?max_num_segments=1')).status).toBe(200);
    expect((await call(server.url, 'POST', '/m-1/_flush')).status).toBe(200);
    const count = await call(server.url, 'GET', '/m-1/_count?q=t:kept');
    expect(count.json).toMatchObject({ count: 1 });
  });

  it.each(['/missing/_flush', '/missing/_forcemerge'])(
    'POST %s answers 404 index_not_found_exception',
    async (path) => {
      const response = await call(server.url, 'POST', path);
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({
        error: { type: 'index_not_found_exception', 'resource.id': 'missing' },
        status: 404,
      });
    },
  );

  it('refuses bad input as ES does', async () => {
    const both = await call(server.url, 'POST', '/_forcemerge?only_expunge_deletes=true&max_num_segments=1');
    expect(both.status).toBe(400);
    expect(both.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason:
          'Validation Failed: 1: cannot set only_expunge_deletes and max_num_segments at the same time;',
      },
    });
    const segments = await call(server.url, 'POST', '/_forcemerge?max_num_segments=one');
    expect(segments.status).toBe(400);
    const force = await call(server.url, 'POST', '/_flush?force=yes');
    expect(force.status).toBe(400);
    const unknown = await call(server.url, 'POST', '/_flush?max_num_segments=1');
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
  });

  it('works through the official client', async () => {
    const es = client8(server.url);
    expect(await es.indices.flush({ index: 'm-1' })).toEqual({
      _shards: { total: 1, successful: 1, failed: 0 },
    });
    expect(await es.indices.forcemerge({ index: 'm-2', max_num_segments: 1 })).toEqual({
      _shards: { total: 2, successful: 1, failed: 0 },
    });
    const missing = await failure(es.indices.flush({ index: 'nope' }));
    expect(missing.status).toBe(404);
  });
});
