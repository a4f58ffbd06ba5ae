import { Client } from 'pg';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

type Hits = { hits: { total: { value: number; relation: string }; hits: Record<string, unknown>[] } };

/**
 * terminate_after, timeout, profile and sliced scroll / PIT (ES reference "Search API", "Profile API",
 * "Paginate search results › Sliced scroll"; YAML tests scroll/12_slices, search/370_profile), through
 * the official client and raw HTTP on real Postgres, bad input included.
 */
describe('search execution options', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  const index = 'executed';
  const other = 'executed-other';
  const search = (body: unknown, query = '', path = `/${index}/_search`) =>
    call(server.url, 'POST', `${path}${query}`, body);

  beforeAll(async () => {
    server = await startSearchStore({ PG_STATEMENT_TIMEOUT_MS: '3000' });
    for (const name of [index, other]) {
      await es().indices.create({
        index: name,
        mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' }, body: { type: 'text' } } },
      });
    }
    await es().bulk({
      refresh: true,
      operations: [
        ...Array.from({ length: 10 }, (_, i) => [
          { index: { _index: index, _id: String(i + 1) } },
          { n: i + 1, tag: i % 2 === 0 ? 'odd' : 'even', body: 'quick fox' },
        ]).flat(),
        ...Array.from({ length: 3 }, (_, i) => [
          { index: { _index: other, _id: `o${i}` } },
          { n: 100 + i, tag: 'other' },
        ]).flat(),
      ],
    });
  });
  afterAll(() => server.stop());

  describe('terminate_after', () => {
    it('collects at most N documents per index: hits, total and aggregations over those, terminated_early', async () => {
      const res = await search(
        { terminate_after: 4, sort: [{ n: 'desc' }], aggs: { tags: { terms: { field: 'tag' } } } },
        '',
      );
      expect(res.status).toBe(200);
      const body = res.json as Hits & Record<string, unknown>;
      expect(Object.keys(body).slice(0, 4)).toEqual(['took', 'timed_out', 'terminated_early', '_shards']);
      expect(body.terminated_early).toBe(true);
      expect(body.hits.total).toEqual({ value: 4, relation: 'eq' });
      expect(body.hits.hits.map((h) => h._id)).toEqual(['4', '3', '2', '1']);
      expect(body.aggregations).toEqual({
        tags: {
          doc_count_error_upper_bound: 0,
          sum_other_doc_count: 0,
          buckets: [
            { key: 'even', doc_count: 2 },
            { key: 'odd', doc_count: 2 },
          ],
        },
      });
    });

    it('answers terminated_early false when fewer documents match, and counts per index', async () => {
      const few = await es().search({ index, terminate_after: 20, query: { term: { tag: 'odd' } } });
      expect(few.terminated_early).toBe(false);
      expect(few.hits.total).toEqual({ value: 5, relation: 'eq' });
      const both = await es().search({ index: `${index},${other}`, terminate_after: 2, size: 0 });
      expect(both.terminated_early).toBe(true);
      expect(both.hits.total).toEqual({ value: 4, relation: 'eq' });
    });

    it('takes terminate_after from the URL and has no terminated_early without it', async () => {
      const res = await search({ query: { match: { body: 'fox' } } }, '?terminate_after=3');
      expect((res.json as Hits).hits.total.value).toBe(3);
      expect((res.json as Record<string, unknown>).terminated_early).toBe(true);
      const plain = await search({ query: { match: { body: 'fox' } } });
      expect(Object.hasOwn(plain.json as object, 'terminated_early')).toBe(false);
    });

    it.each<[string, unknown, string]>([
      ['a negative value', -1, 'illegal_argument_exception'],
      ['a string', 'x', 'x_content_parse_exception'],
    ])('refuses %s', async (_, value, type) => {
      const res = await search({ terminate_after: value });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { type } });
    });
  });

  describe('timeout', () => {
    /** Holds `documents` in another session so that the search's statement waits on its lock. */
    async function whileDocumentsLocked<T>(work: () => Promise<T>): Promise<T> {
      const holder = new Client({ connectionString: server.config.DATABASE_URL });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE documents IN ACCESS EXCLUSIVE MODE');
        return await work();
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    }

    it('answers timed_out: true with what was collected (nothing) when the budget runs out', async () => {
      const started = Date.now();
      const res = await whileDocumentsLocked(() => search({ timeout: '200ms', sort: ['n'] }));
      expect(Date.now() - started).toBeLessThan(2500);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        timed_out: true,
        hits: { total: { value: 0, relation: 'eq' }, max_score: null, hits: [] },
      });
      // The connection's own statement timeout is back: the next search answers in full.
      const after = await search({ timeout: '5s', sort: ['n'], size: 1 });
      expect(after.json).toMatchObject({ timed_out: false, hits: { total: { value: 10 } } });
    });

    it('fails the search when allow_partial_search_results=false, as ES', async () => {
      const res = await whileDocumentsLocked(() =>
        search({ timeout: '200ms', sort: ['n'] }, '?allow_partial_search_results=false'),
      );
      expect(res.status).toBe(429);
      expect(res.json).toMatchObject({
        error: {
          type: 'search_phase_execution_exception',
          root_cause: [{ type: 'search_timeout_exception', reason: 'Time exceeded' }],
        },
        status: 429,
      });
    });

    it('keeps the per-statement timeout when the search timeout is longer', async () => {
      const started = Date.now();
      const res = await whileDocumentsLocked(() => search({ timeout: '1m', sort: ['n'] }));
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(res.status).toBe(429);
      expect(res.json).toMatchObject({ error: { type: 'search_timeout_exception' } });
    });

    it('applies search.default_search_timeout to searches without their own timeout', async () => {
      const put = (value: string | null) =>
        call(server.url, 'PUT', '/_cluster/settings', {
          persistent: { 'search.default_search_timeout': value },
        });
      expect((await put('soon')).status).toBe(400);
      expect((await put('200ms')).status).toBe(200);
      try {
        // The setting is read at most once a second per instance.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const res = await whileDocumentsLocked(() => search({ sort: ['n'] }));
        expect(res.json).toMatchObject({ timed_out: true });
        // An explicit -1 is no timeout: the per-statement timeout answers instead.
        const own = await whileDocumentsLocked(() => search({ sort: ['n'], timeout: '-1' }));
        expect(own.status).toBe(429);
      } finally {
        await put(null);
      }
    });

    it('refuses a timeout without a unit', async () => {
      const res = await search({ timeout: '10' });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { type: 'parse_exception' } });
    });
  });

  describe('profile', () => {
    it('answers our plan in ES shape: shards[].searches[].query[], collector, aggregations, fetch', async () => {
      const res = await es().search({
        index,
        profile: true,
        query: { bool: { must: [{ term: { tag: 'odd' } }], filter: [{ range: { n: { gte: 2 } } }] } },
        aggs: { top: { max: { field: 'n' } } },
      });
      expect(res.hits.total).toEqual({ value: 4, relation: 'eq' });
      const shard = res.profile!.shards[0]!;
      expect(shard).toMatchObject({ id: `[search-store][${index}][0]`, index, shard_id: 0 });
      const root = shard.searches[0]!.query[0]!;
      expect(root.type).toBe('BooleanQuery');
      expect(root.time_in_nanos).toBeGreaterThan(0);
      expect(root.breakdown.create_weight).toBeGreaterThan(0);
      expect(root.breakdown.next_doc).toBeGreaterThan(0);
      expect(root.time_in_nanos).toBe(root.breakdown.create_weight + root.breakdown.next_doc);
      expect(root.children!.map((c) => [c.type, c.description])).toEqual([
        ['TermQuery', 'tag:odd'],
        ['IndexOrDocValuesQuery', 'range(n)'],
      ]);
      expect(shard.searches[0]!.collector[0]).toMatchObject({
        name: 'QueryPhaseCollector',
        reason: 'search_query_phase',
      });
      expect(shard.aggregations[0]).toMatchObject({ description: 'top' });
      expect(shard.fetch).toMatchObject({
        type: 'fetch',
        debug: { stored_fields: ['_id', '_routing', '_source'] },
      });
    });

    it('has no profile section without profile: true, and refuses a non-boolean', async () => {
      const plain = await es().search({ index });
      expect(plain.profile).toBeUndefined();
      const bad = await search({ profile: 'yes' });
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ error: { type: 'parsing_exception' } });
    });
  });

  describe('slice', () => {
    async function scrollAll(slice: { id: string; max: number; field?: string }): Promise<string[]> {
      const ids: string[] = [];
      let res = await es().search({ index, scroll: '1m', size: 2, slice, sort: ['n'] });
      while (res.hits.hits.length > 0) {
        ids.push(...res.hits.hits.map((h) => h._id!));
        res = await es().scroll({ scroll_id: res._scroll_id!, scroll: '1m' });
      }
      await es().clearScroll({ scroll_id: res._scroll_id! });
      return ids;
    }

    it.each<[string, { field?: string }]>([
      ['by document', {}],
      ['by a numeric field', { field: 'n' }],
    ])('splits a scroll %s into disjoint slices whose union is every document', async (_, extra) => {
      const slices = [];
      for (let id = 0; id < 3; id++) slices.push(await scrollAll({ id: String(id), max: 3, ...extra }));
      const all = slices.flat();
      expect(new Set(all).size).toBe(all.length);
      expect(all.map(Number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(slices.filter((s) => s.length > 0).length).toBeGreaterThan(1);
    });

    it('slices a point in time the same way', async () => {
      const pit = await es().openPointInTime({ index, keep_alive: '1m' });
      const seen: string[] = [];
      for (let id = 0; id < 2; id++) {
        const res = await es().search({ pit: { id: pit.id }, slice: { id: String(id), max: 2 }, size: 20 });
        seen.push(...res.hits.hits.map((h) => h._id!));
      }
      await es().closePointInTime({ id: pit.id });
      expect(seen.map(Number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('refuses a slice without scroll or point in time', async () => {
      const { status, body } = await failure(es().search({ index, slice: { id: '0', max: 2 } }));
      expect(status).toBe(400);
      expect(body).toMatchObject({
        error: {
          type: 'action_request_validation_exception',
          reason: 'Validation Failed: 1: [slice] can only be used with [scroll] or [point-in-time] requests;',
        },
      });
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      [
        'max above index.max_slices_per_scroll',
        { id: 0, max: 1025 },
        'search_phase_execution_exception',
        'The number of slices [1025] is too large. It must be less than [1024]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.',
      ],
      ['id not below max', { id: 2, max: 2 }, 'illegal_argument_exception', 'max must be greater than id'],
      ['max of 1', { id: 0, max: 1 }, 'illegal_argument_exception', 'max must be greater than 1'],
      [
        'a negative id',
        { id: -1, max: 2 },
        'illegal_argument_exception',
        'id must be greater than or equal to 0',
      ],
      [
        'an unmapped field',
        { id: 0, max: 2, field: 'nope' },
        'search_phase_execution_exception',
        'field nope not found',
      ],
      [
        'a keyword field',
        { id: 0, max: 2, field: 'tag' },
        'search_phase_execution_exception',
        'cannot load numeric doc values on tag',
      ],
    ])('refuses %s', async (_, slice, type, reason) => {
      const res = await search({ slice }, '?scroll=1m');
      expect(res.status).toBe(400);
      const error = (
        res.json as { error: { type: string; reason: string; root_cause: { reason: string }[] } }
      ).error;
      expect(error.type).toBe(type);
      expect(error.root_cause[0]!.reason).toBe(reason);
    });

    it('honours a raised index.max_slices_per_scroll', async () => {
      await es().indices.putSettings({ index: other, settings: { 'index.max_slices_per_scroll': 1025 } });
      const res = await es().search({ index: other, scroll: '1m', slice: { id: '0', max: 1025 } });
      expect(res.hits.hits.length).toBeGreaterThanOrEqual(0);
      await es().clearScroll({ scroll_id: res._scroll_id! });
    });
  });
});
