import { call, client8 } from '../../support/http';
import { startInstances, type Instance } from '../../support/start-instances';

type Hit = { _id: string; _source: Record<string, unknown>; sort?: unknown[]; _score: number | null };
type Page = { _scroll_id: string; hits: { total: unknown; hits: Hit[] } };

/**
 * ES "Paginate search results" (scroll) and the scroll YAML tests (scroll/10_basic, 11_clear,
 * 20_keep_alive): through the official client and raw HTTP, on two instances over one Postgres.
 */
describe('scroll', () => {
  let a: Instance;
  let b: Instance;
  let all: Instance[];
  beforeAll(async () => {
    ({ instances: all } = await startInstances(2, { sweepMs: 200 }));
    [a, b] = all as [Instance, Instance];
    const operations = Array.from({ length: 25 }, (_, i) => [
      { index: { _index: 'books', _id: `b${String(i).padStart(2, '0')}` } },
      { n: i, title: `book ${i}`, tag: i % 2 === 0 ? 'even' : 'odd' },
    ]).flat();
    await client8(a.url).bulk({ operations, refresh: true });
    await call(a.url, 'PUT', '/other', {});
    await call(a.url, 'PUT', '/other/_doc/o1?refresh=true', { n: 100, title: 'other' });
  });
  afterAll(async () => {
    for (const instance of all) await instance.stop();
  });
  afterEach(async () => {
    await call(a.url, 'DELETE', '/_search/scroll/_all');
  });

  const post = (instance: Instance, path: string, body?: unknown) => call(instance.url, 'POST', path, body);
  const ids = (page: Page) => page.hits.hits.map((h) => h._id);

  it('helpers.scrollSearch reads every document once, then clears its scroll', async () => {
    const seen: string[] = [];
    let pages = 0;
    for await (const result of client8(a.url).helpers.scrollSearch({
      index: 'books',
      size: 10,
      sort: ['_doc'],
      query: { match_all: {} },
    })) {
      pages += 1;
      seen.push(...result.body.hits.hits.map((h) => h._id!));
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `b${String(i).padStart(2, '0')}`));
    const rows = await a.pool.query('SELECT count(*)::int AS n FROM search_contexts WHERE kind = $$scroll$$');
    expect(rows.rows[0].n).toBe(0);
  });

  it('counts the matches once: later pages report the count kept with the context', async () => {
    // ES ScrollContext keeps the first round's totalHits and maxScore; recounting every match on
    // every page made a full scroll of N documents cost N²/size (2,450 docs/s at 1M).
    const first = await post(a, '/books/_search?scroll=1m', {
      size: 10,
      sort: ['_doc'],
      query: { term: { tag: 'even' } },
    });
    const page1 = first.json as Page;
    expect(page1.hits.total).toEqual({ value: 13, relation: 'eq' });
    const stored = await a.pool.query(
      "SELECT request->'known' AS known FROM search_contexts WHERE kind = 'scroll'",
    );
    expect(stored.rows).toEqual([{ known: { total: 13, maxScore: null } }]);
    // The kept count is what a later page reports: it does not count again.
    await a.pool.query(
      `UPDATE search_contexts SET request = request || '{"known":{"total":9999,"maxScore":null}}'::jsonb WHERE kind = 'scroll'`,
    );
    const second = (await post(b, '/_search/scroll', { scroll: '1m', scroll_id: page1._scroll_id }))
      .json as Page;
    expect(second.hits.total).toEqual({ value: 9999, relation: 'eq' });
    expect(ids(second)).toEqual(['b20', 'b22', 'b24']);
  });

  it('serves each next page from either instance, same total, then an empty page', async () => {
    const first = await post(a, '/books/_search?scroll=1m', { size: 10, sort: [{ n: 'desc' }] });
    expect(first.status).toBe(200);
    const page1 = first.json as Page;
    expect(page1.hits.total).toEqual({ value: 25, relation: 'eq' });
    expect(page1.hits.hits[0]).toMatchObject({ _id: 'b24', sort: [24] });
    const second = await post(b, '/_search/scroll', { scroll: '1m', scroll_id: page1._scroll_id });
    expect(second.status).toBe(200);
    const page2 = second.json as Page;
    expect(page2._scroll_id).toBe(page1._scroll_id);
    expect(ids(page2)).toEqual(Array.from({ length: 10 }, (_, i) => `b${String(14 - i).padStart(2, '0')}`));
    expect(page2.hits.hits[0]!.sort).toEqual([14]);
    // The deprecated path form and the URL parameters, on the first instance again.
    const third = await call(
      a.url,
      'GET',
      `/_search/scroll/${page1._scroll_id}?scroll=1m&rest_total_hits_as_int=true`,
    );
    expect(third.status).toBe(200);
    const page3 = third.json as Page;
    expect(page3.hits.total).toBe(25);
    expect(ids(page3)).toEqual(['b04', 'b03', 'b02', 'b01', 'b00']);
    const fourth = (await post(b, '/_search/scroll', { scroll_id: page1._scroll_id })).json as Page;
    expect(fourth.hits.hits).toEqual([]);
    expect(fourth.hits.total).toEqual({ value: 25, relation: 'eq' });
  });

  it('scores by default: no sort values in hits, best first, across pages', async () => {
    const first = (await post(a, '/books/_search?scroll=1m', { size: 3, query: { match: { tag: 'even' } } }))
      .json as Page;
    expect(first.hits.total).toEqual({ value: 13, relation: 'eq' });
    expect(first.hits.hits[0]!.sort).toBeUndefined();
    expect(typeof first.hits.hits[0]!._score).toBe('number');
    const seen = new Set(ids(first));
    for (let i = 0; i < 5; i++) {
      const page = (await post(i % 2 ? a : b, '/_search/scroll', { scroll_id: first._scroll_id }))
        .json as Page;
      for (const id of ids(page)) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
    }
    expect(seen.size).toBe(13);
  });

  it('sees the indices as they were when it opened while writes go on', async () => {
    const es = client8(a.url);
    await es.index({ index: 'moving', id: 'm1', document: { n: 1, v: 'old' } });
    await es.index({ index: 'moving', id: 'm2', document: { n: 2, v: 'old' } });
    await es.index({ index: 'moving', id: 'm3', document: { n: 3, v: 'old' }, refresh: true });
    const first = (await post(a, '/moving/_search?scroll=1m', { size: 1, sort: ['n'] })).json as Page;
    expect(ids(first)).toEqual(['m1']);
    await es.index({ index: 'moving', id: 'm0', document: { n: 0, v: 'new' }, refresh: true });
    await es.delete({ index: 'moving', id: 'm2', refresh: true });
    await es.update({ index: 'moving', id: 'm3', doc: { v: 'changed' }, refresh: true });
    await es.bulk({ operations: [{ index: { _index: 'moving', _id: 'm4' } }, { n: 4 }], refresh: true });
    const rest: Hit[] = [];
    for (let i = 0; i < 3; i++) {
      const page = (await post(i % 2 ? a : b, '/_search/scroll', { scroll_id: first._scroll_id }))
        .json as Page;
      rest.push(...page.hits.hits);
      expect(page.hits.total).toEqual({ value: 3, relation: 'eq' });
    }
    expect(rest.map((h) => [h._id, h._source])).toEqual([
      ['m2', { n: 2, v: 'old' }],
      ['m3', { n: 3, v: 'old' }],
    ]);
    // A new scroll sees the writes.
    const now = (await post(b, '/moving/_search?scroll=1m', { size: 10, sort: ['n'] })).json as Page;
    expect(ids(now)).toEqual(['m0', 'm1', 'm3', 'm4']);
    expect(now.hits.hits[2]!._source).toEqual({ n: 3, v: 'changed' });
  });

  it('clears by body string, body array, path and _all; 404 with num_freed 0 when nothing was open', async () => {
    const open = async () =>
      ((await post(a, '/books/_search?scroll=1m', { size: 1 })).json as Page)._scroll_id;
    const [s1, s2, s3, s4, s5] = [await open(), await open(), await open(), await open(), await open()];
    const byString = await call(b.url, 'DELETE', '/_search/scroll', { scroll_id: s1 });
    expect([byString.status, byString.json]).toEqual([200, { succeeded: true, num_freed: 1 }]);
    // The body wins over the path (11_clear.yml).
    const byArray = await call(a.url, 'DELETE', '/_search/scroll/not-an-id', { scroll_id: [s2, s3] });
    expect([byArray.status, byArray.json]).toEqual([200, { succeeded: true, num_freed: 2 }]);
    const byPath = await call(a.url, 'DELETE', `/_search/scroll/${s4}`);
    expect([byPath.status, byPath.json]).toEqual([200, { succeeded: true, num_freed: 1 }]);
    const again = await call(a.url, 'DELETE', `/_search/scroll/${s4}`);
    expect([again.status, again.json]).toEqual([404, { succeeded: true, num_freed: 0 }]);
    const missing = await post(b, '/_search/scroll', { scroll_id: s1 });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [{ type: 'search_context_missing_exception' }],
      },
      status: 404,
    });
    const everything = await client8(b.url).clearScroll({ scroll_id: '_all' });
    expect(everything).toEqual({ succeeded: true, num_freed: 1 });
    void s5;
    // The owner's sweep ends the holder connection once none of its contexts is left.
    await a.contexts.sweep();
    expect(a.contexts.holderConnections).toBe(0);
  });

  it('the official client: search with scroll, scroll, clearScroll', async () => {
    const es = client8(b.url);
    const first = await es.search({ index: 'books', scroll: '30s', size: 20, sort: ['n'] });
    expect(first.hits.hits).toHaveLength(20);
    const next = await client8(a.url).scroll({ scroll_id: first._scroll_id!, scroll: '30s' });
    expect(next.hits.hits.map((h) => h._id)).toEqual(['b20', 'b21', 'b22', 'b23', 'b24']);
    expect(await es.clearScroll({ scroll_id: first._scroll_id! })).toEqual({ succeeded: true, num_freed: 1 });
  });

  it('scrolls over several indices in _doc order without losing any', async () => {
    // d1's second document comes after d2's first: `_doc` order is index, then document.
    await call(a.url, 'PUT', '/d1/_doc/x1?refresh=true', { n: 1 });
    await call(a.url, 'PUT', '/d2/_doc/y1?refresh=true', { n: 2 });
    await call(a.url, 'PUT', '/d1/_doc/x2?refresh=true', { n: 3 });
    const first = (await post(a, '/d1,d2,books/_search?scroll=1m', { size: 1, sort: ['_doc'] })).json as Page;
    const seen = ids(first);
    for (let i = 0; i < 40; i++) {
      const page = (await post(i % 2 ? a : b, '/_search/scroll', { scroll_id: first._scroll_id }))
        .json as Page;
      if (page.hits.hits.length === 0) break;
      seen.push(...ids(page));
    }
    expect(seen).toHaveLength(28);
    expect(new Set(seen).size).toBe(28);
    expect(seen.filter((id) => /^[xy]/.test(id))).toEqual(['x1', 'x2', 'y1']);
  });

  it('expires after its keep-alive; each use starts the keep-alive again', async () => {
    const first = (await post(a, '/books/_search?scroll=1500ms', { size: 1 })).json as Page;
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 800));
      const page = await post(i % 2 ? a : b, '/_search/scroll', { scroll_id: first._scroll_id });
      expect(page.status).toBe(200);
    }
    // A use may set a shorter keep-alive.
    expect((await post(a, '/_search/scroll', { scroll_id: first._scroll_id, scroll: '100ms' })).status).toBe(
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    const expired = await post(b, '/_search/scroll', { scroll_id: first._scroll_id });
    expect(expired.status).toBe(404);
    expect(expired.json).toMatchObject({
      error: { root_cause: [{ type: 'search_context_missing_exception' }] },
    });
    // The sweep removes the expired row and ends the holder.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(
      (await a.pool.query('SELECT count(*)::int AS n FROM search_contexts WHERE kind = $$scroll$$')).rows[0]
        .n,
    ).toBe(0);
    expect(a.contexts.holderConnections).toBe(0);
  });

  it('refuses a scroll past search.max_open_scroll_context, across instances', async () => {
    await call(a.url, 'PUT', '/_cluster/settings', { persistent: { 'search.max_open_scroll_context': 2 } });
    try {
      expect((await post(a, '/books/_search?scroll=1m', { size: 1 })).status).toBe(200);
      expect((await post(b, '/books/_search?scroll=1m', { size: 1 })).status).toBe(200);
      const third = await post(a, '/books/_search?scroll=1m', { size: 1 });
      expect(third.status).toBe(429);
      expect(third.json).toMatchObject({
        error: {
          type: 'search_phase_execution_exception',
          root_cause: [
            {
              type: 'too_many_scroll_contexts_exception',
              reason:
                'Trying to create too many scroll contexts. Must be less than or equal to: [2]. This limit can be set by changing the [search.max_open_scroll_context] setting.',
            },
          ],
        },
        status: 429,
      });
      // A point in time does not count against it (ES: scroll contexts only).
      expect((await post(a, '/books/_pit?keep_alive=1m')).status).toBe(200);
    } finally {
      await call(a.url, 'PUT', '/_cluster/settings', {
        persistent: { 'search.max_open_scroll_context': null },
      });
    }
  });

  it.each([
    [
      'from',
      '/books/_search?scroll=1m',
      { from: 2 },
      'Validation Failed: 1: using [from] is not allowed in a scroll context;',
    ],
    [
      'size 0',
      '/books/_search?scroll=1m&size=0',
      {},
      'Validation Failed: 1: [size] cannot be [0] in a scroll context;',
    ],
    [
      'track_total_hits false',
      '/books/_search?scroll=1m',
      { track_total_hits: false },
      'Validation Failed: 1: disabling [track_total_hits] is not allowed in a scroll context;',
    ],
    [
      'search_after',
      '/books/_search?scroll=1m',
      { sort: ['n'], search_after: [1] },
      'Validation Failed: 1: [search_after] cannot be used in a scroll context;',
    ],
    [
      'two at once',
      '/books/_search?scroll=1m',
      { from: 1, size: 0 },
      'Validation Failed: 1: using [from] is not allowed in a scroll context;2: [size] cannot be [0] in a scroll context;',
    ],
  ])('refuses a scroll with %s', async (_name, path, body, reason) => {
    const response = await post(a, path, body);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { type: 'action_request_validation_exception', reason } });
    expect(
      (await a.pool.query('SELECT count(*)::int AS n FROM search_contexts WHERE kind = $$scroll$$')).rows[0]
        .n,
    ).toBe(0);
  });

  it('answers bad ids, keep-alives and bodies as ES', async () => {
    const badId = await post(a, '/_search/scroll', { scroll_id: 'bm9wZQ==' });
    expect([badId.status, badId.json]).toMatchObject([
      400,
      { error: { type: 'illegal_argument_exception', reason: 'Cannot parse scroll id' } },
    ]);
    const badClear = await call(a.url, 'DELETE', '/_search/scroll', { scroll_id: ['x!'] });
    expect(badClear.status).toBe(400);
    const noId = await post(a, '/_search/scroll', {});
    expect([noId.status, noId.json]).toMatchObject([
      400,
      {
        error: {
          type: 'action_request_validation_exception',
          reason: 'Validation Failed: 1: scrollId is missing;',
        },
      },
    ]);
    const noClear = await call(a.url, 'DELETE', '/_search/scroll');
    expect(noClear.status).toBe(400);
    const badKeepAlive = await post(a, '/books/_search?scroll=abc', {});
    expect([badKeepAlive.status, badKeepAlive.json]).toMatchObject([
      400,
      {
        error: {
          type: 'parse_exception',
          reason:
            'failed to parse setting [scroll] with value [abc] as a time value: unit is missing or unrecognized',
        },
      },
    ]);
    const tooLong = await post(a, '/books/_search?scroll=2d', {});
    expect([tooLong.status, tooLong.json]).toMatchObject([
      400,
      {
        error: {
          type: 'illegal_argument_exception',
          reason:
            'Keep alive for request (2d) is too large. It must be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level setting.',
        },
      },
    ]);
    const unknownKey = await post(a, '/_search/scroll', { scroll_id: 'x', size: 3 });
    expect(unknownKey.status).toBe(400);
    const unknownParam = await post(a, '/_search/scroll?size=3', { scroll_id: 'x' });
    expect(unknownParam.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
    const missingIndex = await post(a, '/nope/_search?scroll=1m', {});
    expect(missingIndex.status).toBe(404);
    expect(
      (await a.pool.query('SELECT count(*)::int AS n FROM search_contexts WHERE kind = $$scroll$$')).rows[0]
        .n,
    ).toBe(0);
  });

  it('keeps many contexts in one holder connection outside the pools', async () => {
    // From none: earlier tests' contexts (a PIT) and holders (older than the 30 s rotation) gone.
    await a.pool.query('DELETE FROM search_contexts');
    await Promise.all([a.contexts.sweep(), b.contexts.sweep()]);
    expect([a.contexts.holderConnections, b.contexts.holderConnections]).toEqual([0, 0]);
    const scrollIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const page = (await post(i % 2 ? a : b, '/books/_search?scroll=1m', { size: 1 })).json as Page;
      scrollIds.push(page._scroll_id);
    }
    expect([a.contexts.holderConnections, b.contexts.holderConnections]).toEqual([1, 1]);
    for (const scrollId of scrollIds) {
      expect((await post(a, '/_search/scroll', { scroll_id: scrollId })).status).toBe(200);
    }
    await call(a.url, 'DELETE', '/_search/scroll/_all');
    await Promise.all([a.contexts.sweep(), b.contexts.sweep()]);
    expect([a.contexts.holderConnections, b.contexts.holderConnections]).toEqual([0, 0]);
  });

  it('ends the snapshots of an instance that stops sweeping (Postgres idle-in-transaction timeout)', async () => {
    const { instances } = await startInstances(2, { sweepMs: 600_000, idleTimeoutMs: 1000 });
    const [hung, other] = instances as [Instance, Instance];
    try {
      await call(hung.url, 'PUT', '/h/_doc/1?refresh=true', { a: 1 });
      const first = (await post(hung, '/h/_search?scroll=1m', { size: 1 })).json as Page;
      expect((await post(other, '/_search/scroll', { scroll_id: first._scroll_id })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1800));
      const after = await post(other, '/_search/scroll', { scroll_id: first._scroll_id });
      expect(after.status).toBe(404);
      expect(after.json).toMatchObject({
        error: { root_cause: [{ type: 'search_context_missing_exception' }] },
      });
    } finally {
      for (const instance of instances) await instance.stop();
    }
  });

  it('bounds a scroll batch by index.max_result_window, not from + size', async () => {
    await call(a.url, 'PUT', '/small', { settings: { 'index.max_result_window': 3 } });
    for (const id of ['1', '2', '3', '4', '5'])
      await call(a.url, 'PUT', `/small/_doc/${id}?refresh=true`, { n: Number(id) });
    const tooBig = await post(a, '/small/_search?scroll=1m', { size: 4 });
    expect(tooBig.status).toBe(400);
    expect(tooBig.json).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [
          {
            type: 'illegal_argument_exception',
            reason:
              'Batch size is too large, size must be less than or equal to: [3] but was [4]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.',
          },
        ],
      },
    });
    expect(
      (await a.pool.query("SELECT count(*)::int AS n FROM search_contexts WHERE kind = 'scroll'")).rows[0].n,
    ).toBe(0);
    // Pages past the window are fine: a scroll has no from.
    const first = (await post(a, '/small/_search?scroll=1m', { size: 3, sort: ['n'] })).json as Page;
    const second = (await post(b, '/_search/scroll', { scroll_id: first._scroll_id })).json as Page;
    expect([...ids(first), ...ids(second)]).toEqual(['1', '2', '3', '4', '5']);
  });

  it('loses the contexts of an instance that stops, as ES loses a dead node’s', async () => {
    const { instances } = await startInstances(2);
    const [owner, other] = instances as [Instance, Instance];
    try {
      await call(owner.url, 'PUT', '/x/_doc/1?refresh=true', { a: 1 });
      const first = (await post(owner, '/x/_search?scroll=1m', { size: 1 })).json as Page;
      expect((await post(other, '/_search/scroll', { scroll_id: first._scroll_id })).status).toBe(200);
      await owner.stop();
      const after = await post(other, '/_search/scroll', { scroll_id: first._scroll_id });
      expect(after.status).toBe(404);
      expect(after.json).toMatchObject({
        error: { root_cause: [{ type: 'search_context_missing_exception' }] },
      });
    } finally {
      for (const instance of instances) await instance.stop();
    }
  });
});
