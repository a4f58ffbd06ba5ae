import { useSearchStore } from '../support/use-search-store';
import { esErrorBody } from '../support/es-error-body';
import { call, client8, failure } from '../support/http';
import { DEFAULT_MAX_CONCURRENT_SEARCHES, MAX_SEARCHES_PER_REQUEST } from '../../src/api/parse-msearch';

const ndjson = (...lines: unknown[]) =>
  lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
const NDJSON = { 'content-type': 'application/x-ndjson' };

/** ES "Multi search API" (search-multi-search), over raw HTTP and through the official client. */
describe('multi search API', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().index({ index: 'ms1', id: '1', document: { foo: 'bar' } });
    await es().index({ index: 'ms1', id: '2', document: { foo: 'baz' } });
    await es().index({ index: 'ms1', id: '3', document: { foo: 'foo' } });
    await es().index({ index: 'ms2', id: '1', document: { foo: 'foo' }, refresh: true });
  });

  const msearch = (path: string, body: string, headers: Record<string, string> = NDJSON) =>
    call(server.url, 'POST', path, body, headers);
  type Item = Record<string, unknown> & { status: number };
  const responses = (json: unknown) => (json as { responses: Item[] }).responses;

  it('runs each header/body pair as _search runs it, in order, with status', async () => {
    const response = await msearch(
      '/_msearch',
      ndjson(
        { index: 'ms*' },
        { query: { match: { foo: 'foo' } } },
        { index: 'ms2' },
        { query: { match_all: {} } },
        { index: ['ms1'] },
        { query: { match: { foo: 'foo' } } },
        {},
        { query: { match_all: {} }, size: 0 },
      ),
    );
    expect(response.status).toBe(200);
    const body = response.json as { took: number; responses: Item[] };
    expect(typeof body.took).toBe('number');
    const totals = body.responses.map((r) => (r.hits as { total: unknown }).total);
    expect(totals).toEqual([
      { value: 2, relation: 'eq' },
      { value: 1, relation: 'eq' },
      { value: 1, relation: 'eq' },
      { value: 4, relation: 'eq' },
    ]);
    expect(body.responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const single = await call(server.url, 'POST', '/ms2/_search', { query: { match_all: {} } });
    const { took: _t1, ...alone } = single.json as Record<string, unknown>;
    const { took: _t2, status, ...item } = body.responses[1] as Item;
    expect(status).toBe(200);
    expect(item).toEqual(alone);
  });

  it('answers a missing index as that item error with its status', async () => {
    const response = await msearch(
      '/_msearch',
      ndjson({ index: 'absent' }, { query: { match_all: {} } }, { index: 'ms2' }, {}),
    );
    expect(response.status).toBe(200);
    const [missing, found] = responses(response.json);
    const cause = {
      type: 'index_not_found_exception',
      reason: 'no such index [absent]',
      index: 'absent',
    };
    expect(missing).toMatchObject({ error: { root_cause: [cause], ...cause }, status: 404 });
    expect(found).toMatchObject({ status: 200, hits: { total: { value: 1 } } });
    const ignored = await msearch('/_msearch', ndjson({ index: 'absent,ms2', ignore_unavailable: true }, {}));
    expect(responses(ignored.json)[0]).toMatchObject({ status: 200, hits: { total: { value: 1 } } });
  });

  it('answers a search that fails on the index (result window) as that item error (400)', async () => {
    const response = await msearch('/ms1/_msearch', ndjson({}, { from: 10000, size: 1 }, {}, { size: 1 }));
    expect(response.status).toBe(200);
    const [bad, good] = responses(response.json);
    expect(bad?.status).toBe(400);
    expect(bad).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [{ type: 'illegal_argument_exception' }],
      },
    });
    expect(good).toMatchObject({ status: 200, hits: { total: { value: 3 } } });
  });

  it('takes the path index as the default, the parameters as defaults, and application/json', async () => {
    const response = await msearch(
      '/ms1/_msearch?rest_total_hits_as_int=true&typed_keys=true&max_concurrent_searches=1',
      ndjson(
        {},
        { query: { match_all: {} } },
        { index: 'ms2', search_type: 'query_then_fetch', preference: '_local' },
        {},
      ),
      { 'content-type': 'application/json' },
    );
    expect(response.status).toBe(200);
    const totals = responses(response.json).map((r) => (r.hits as { total: unknown }).total);
    expect(totals).toEqual([3, 1]);
  });

  it('answers many searches with bounded concurrency, in order', async () => {
    const lines: unknown[] = [];
    for (let i = 0; i < 25; i++) lines.push({ index: i % 2 === 0 ? 'ms1' : 'ms2' }, { size: 0 });
    const response = await msearch('/_msearch?max_concurrent_searches=3', ndjson(...lines));
    const totals = responses(response.json).map((r) => (r.hits as { total: { value: number } }).total.value);
    expect(totals).toEqual(Array.from({ length: 25 }, (_, i) => (i % 2 === 0 ? 3 : 1)));
    expect(DEFAULT_MAX_CONCURRENT_SEARCHES).toBeGreaterThanOrEqual(1);
    expect(DEFAULT_MAX_CONCURRENT_SEARCHES).toBeLessThanOrEqual(10);
  });

  it.each([
    [
      'an empty body',
      '',
      esErrorBody('action_request_validation_exception', 'Validation Failed: 1: no requests added;'),
    ],
    [
      'a last line without a newline',
      '{}\n{"query":{"match_all":{}}}',
      esErrorBody('illegal_argument_exception', 'The msearch request must be terminated by a newline [\\n]'),
    ],
    [
      'an unknown header key',
      ndjson({ index: 'ms1', foo: 1 }, {}),
      esErrorBody('illegal_argument_exception', 'key [foo] is not supported in the metadata section'),
    ],
    [
      'an unknown search type',
      ndjson({ search_type: 'scan' }, {}),
      esErrorBody('illegal_argument_exception', 'No search type for [scan]'),
    ],
  ])('refuses %s for the whole request', async (_name, body, expected) => {
    const response = await msearch('/_msearch', body);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(expected);
  });

  it('refuses a body line that is not JSON, or an unknown query, for the whole request', async () => {
    const syntax = await msearch('/_msearch', '{}\n{"query":\n');
    expect(syntax.status).toBe(400);
    expect(syntax.json).toMatchObject({ error: { type: expect.stringMatching(/^x_content/) as string } });
    const unknown = await msearch('/_msearch', ndjson({}, { query: { nope: {} } }));
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({
      error: { type: 'parsing_exception', reason: 'unknown query [nope]' },
    });
  });

  it('refuses a bad max_concurrent_searches and more searches than the cap', async () => {
    for (const value of ['0', '-1', 'x']) {
      const response = await msearch(`/_msearch?max_concurrent_searches=${value}`, ndjson({}, {}));
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
    }
    const lines: unknown[] = [];
    for (let i = 0; i <= MAX_SEARCHES_PER_REQUEST; i++) lines.push({ index: 'ms1' }, { size: 0 });
    const tooMany = await msearch('/_msearch', ndjson(...lines));
    expect(tooMany.status).toBe(400);
    expect(tooMany.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: `an _msearch request may hold at most [${MAX_SEARCHES_PER_REQUEST}] searches`,
      },
    });
  });

  it('works through the official client, its msearch helper included', async () => {
    const result = await es().msearch({
      searches: [{ index: 'ms1' }, { query: { match: { foo: 'bar' } } }, { index: 'absent' }, {}],
    });
    expect(result.responses[0]).toMatchObject({ status: 200, hits: { total: { value: 1 } } });
    expect(result.responses[1]).toMatchObject({ status: 404, error: { type: 'index_not_found_exception' } });

    const helper = es().helpers.msearch({ operations: 2, flushInterval: 50 });
    try {
      const [a, b, c] = await Promise.all([
        helper.search({ index: 'ms1' }, { query: { match: { foo: 'baz' } } }),
        helper.search({ index: 'ms2' }, { query: { match_all: {} } }),
        helper.search({ index: 'ms1' }, { query: { match_all: {} } }),
      ]);
      expect(a?.body.hits.total).toEqual({ value: 1, relation: 'eq' });
      expect(b?.documents).toEqual([{ foo: 'foo' }]);
      expect(c?.body.hits.hits).toHaveLength(3);
      await expect(helper.search({ index: 'absent' }, {})).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      helper.stop();
    }

    const bad = await failure(es().msearch({ searches: [] }));
    expect(bad.status).toBe(400);
  });
});
