import { call, client8, failure } from '../../support/http';
import { startInstances, type Instance } from '../../support/start-instances';

type Hit = { _index: string; _id: string; _source: Record<string, unknown>; sort?: unknown[] };
type Page = { pit_id: string; hits: { total: { value: number }; hits: Hit[] } };

/**
 * ES "Point in time API" and search_after (search/350_point_in_time.yml): open, search with `pit`
 * and the implicit `_shard_doc` tiebreaker, close; pages served by two instances over one Postgres.
 */
describe('point in time', () => {
  let a: Instance;
  let b: Instance;
  let all: Instance[];
  beforeAll(async () => {
    ({ instances: all } = await startInstances(2));
    [a, b] = all as [Instance, Instance];
    const es = client8(a.url);
    await es.index({ index: 'test', id: '1', document: { id: 1, foo: 'bar', age: 18 } });
    await es.index({ index: 'test', id: '42', document: { id: 42, foo: 'bar', age: 18 } });
    await es.index({ index: 'test', id: '172', document: { id: 172, foo: 'bar', age: 24 } });
    await es.index({ index: 'test2', id: '45', document: { id: 45, foo: 'bar', age: 19 }, refresh: true });
  });
  afterAll(async () => {
    for (const instance of all) await instance.stop();
  });

  const search = (instance: Instance, body: unknown, path = '/_search') =>
    call(instance.url, 'POST', path, body);

  it('pages with search_after in the snapshot it opened, on either instance, while writes go on', async () => {
    const opened = await client8(a.url).openPointInTime({ index: 'test', keep_alive: '5m' });
    expect(opened._shards).toEqual({ total: 1, successful: 1, skipped: 0, failed: 0 });
    const sort = [{ age: 'desc' }, { id: 'desc' }];
    const first = await search(b, {
      size: 1,
      query: { match: { foo: 'bar' } },
      sort,
      pit: { id: opened.id, keep_alive: '1m' },
    });
    expect(first.status).toBe(200);
    const page1 = first.json as Page;
    expect(page1.pit_id).toBe(opened.id);
    expect(page1.hits.total.value).toBe(3);
    expect(page1.hits.hits[0]).toMatchObject({ _index: 'test', _id: '172' });
    // The implicit tiebreaker's value comes last (ES: shard index << 32 | doc).
    const sortValues = page1.hits.hits[0]!.sort!;
    expect(sortValues.slice(0, 2)).toEqual([24, 172]);
    expect(sortValues).toHaveLength(3);
    expect(typeof sortValues[2]).toBe('number');

    await client8(b.url).index({
      index: 'test',
      id: '100',
      document: { id: 100, foo: 'bar', age: 23 },
      refresh: true,
    });
    await client8(b.url).delete({ index: 'test', id: '1', refresh: true });

    const seen: Hit[] = [...page1.hits.hits];
    let after = sortValues;
    for (let i = 0; i < 5; i++) {
      const page = (
        await search(i % 2 ? a : b, { size: 1, sort, search_after: after, pit: { id: opened.id } })
      ).json as Page;
      expect(page.hits.total.value).toBe(3);
      if (page.hits.hits.length === 0) break;
      seen.push(...page.hits.hits);
      after = page.hits.hits.at(-1)!.sort!;
    }
    expect(seen.map((h) => [h._id, h._source.age])).toEqual([
      ['172', 24],
      ['42', 18],
      ['1', 18],
    ]);
    // search_after without the tiebreaker value (350_point_in_time.yml): no tiebreaker added.
    const short = (await search(a, { size: 1, sort, search_after: [18, 42], pit: { id: opened.id } }))
      .json as Page;
    expect(short.hits.hits.map((h) => [h._id, h.sort])).toEqual([['1', [18, 1]]]);

    expect(await client8(a.url).closePointInTime({ id: opened.id })).toEqual({
      succeeded: true,
      num_freed: 1,
    });
    const closedAgain = await call(b.url, 'DELETE', '/_pit', { id: opened.id });
    expect([closedAgain.status, closedAgain.json]).toEqual([404, { succeeded: true, num_freed: 0 }]);
    const gone = await search(b, { pit: { id: opened.id } });
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({
      error: { root_cause: [{ type: 'search_context_missing_exception' }] },
    });
  });

  it('orders by _shard_doc across the indices of a wildcard, each document once', async () => {
    const { id } = await client8(a.url).openPointInTime({ index: 't*', keep_alive: '1m' });
    const ids: string[] = [];
    let after: unknown[] | undefined;
    for (let i = 0; i < 10; i++) {
      const body: Record<string, unknown> = { size: 1, sort: ['_shard_doc'], pit: { id } };
      if (after) body.search_after = after;
      const page = (await search(i % 2 ? a : b, body)).json as Page;
      if (page.hits.hits.length === 0) break;
      expect(page.hits.hits[0]!.sort).toHaveLength(1);
      ids.push(`${page.hits.hits[0]!._index}/${page.hits.hits[0]!._id}`);
      after = page.hits.hits[0]!.sort;
    }
    expect(ids.sort()).toEqual(['test/100', 'test/172', 'test/42', 'test2/45']);
    await client8(a.url).closePointInTime({ id });
  });

  it('without sort: scores, no sort values; msearch and the lean path read it too', async () => {
    const { id } = await client8(b.url).openPointInTime({ index: 'test', keep_alive: '1m' });
    const page = (await search(a, { query: { match: { foo: 'bar' } }, pit: { id } })).json as Page;
    expect(page.hits.hits.length).toBe(3);
    expect(page.hits.hits[0]!.sort).toBeUndefined();
    const multi = await client8(a.url).msearch({
      searches: [{}, { query: { match_all: {} }, pit: { id } }],
    });
    expect(multi.responses[0]).toMatchObject({ status: 200, hits: { total: { value: 3 } } });
    await client8(a.url).closePointInTime({ id });
  });

  it('answers ES errors for bad requests', async () => {
    const { id } = await client8(a.url).openPointInTime({ index: 'test', keep_alive: '1m' });
    const withIndex = await search(a, { pit: { id } }, '/test/_search');
    expect([withIndex.status, withIndex.json]).toMatchObject([
      400,
      {
        error: {
          type: 'action_request_validation_exception',
          reason:
            'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;',
        },
      },
    ]);
    const withScroll = await search(a, { pit: { id } }, '/_search?scroll=1m');
    expect(withScroll.json).toMatchObject({
      error: { reason: 'Validation Failed: 1: using [point in time] is not allowed in a scroll context;' },
    });
    const noKeepAlive = await failure(client8(a.url).openPointInTime({ index: 'test' } as never));
    expect(noKeepAlive).toMatchObject({
      status: 400,
      body: {
        error: {
          type: 'action_request_validation_exception',
          reason: 'Validation Failed: 1: [keep_alive] is not specified;',
        },
      },
    });
    const missingIndex = await call(a.url, 'POST', '/nope/_pit?keep_alive=1m');
    expect(missingIndex.status).toBe(404);
    const badId = await search(a, { pit: { id: 'not-a-pit' } });
    expect([badId.status, badId.json]).toMatchObject([
      400,
      { error: { type: 'illegal_argument_exception' } },
    ]);
    // A scroll id is not a PIT id.
    const scroll = (await call(a.url, 'POST', '/test/_search?scroll=1m', {})).json as { _scroll_id: string };
    expect((await search(a, { pit: { id: scroll._scroll_id } })).status).toBe(400);
    await call(a.url, 'DELETE', '/_search/scroll/_all');
    const noCloseId = await call(a.url, 'DELETE', '/_pit', {});
    expect([noCloseId.status, noCloseId.json]).toMatchObject([
      400,
      { error: { reason: 'Validation Failed: 1: id is empty;' } },
    ]);
    const shardDoc = await search(a, { sort: ['_shard_doc'] }, '/test/_search');
    expect(shardDoc.json).toMatchObject({
      error: {
        reason: 'Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];',
      },
    });
    const badPit = await search(a, { pit: { id, keep_alive: 'x' } });
    expect(badPit.status).toBe(400);
    const unknown = await search(a, { pit: { id, nope: 1 } });
    expect(unknown.status).toBe(400);
    // DELETE /_pit is never an index delete.
    await client8(a.url).closePointInTime({ id });
    expect((await call(a.url, 'HEAD', '/test')).status).toBe(200);
  });

  it('expires after its keep-alive', async () => {
    const { id } = await client8(a.url).openPointInTime({ index: 'test', keep_alive: '1s' });
    expect((await search(b, { pit: { id, keep_alive: '300ms' } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await search(b, { pit: { id } })).status).toBe(404);
  });
});
