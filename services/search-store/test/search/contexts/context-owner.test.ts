import { call } from '../../support/http';
import { startInstances, type Instance } from '../../support/start-instances';

/**
 * A scroll or PIT belongs to the user that opened it, as in ES with security on: anyone else's use,
 * clear or close answers as if it did not exist (search_context_missing_exception, num_freed 0).
 */
describe('scroll and PIT contexts belong to their user', () => {
  let a: Instance;
  let b: Instance;
  let all: Instance[];
  const alice = { 'x-test-user': 'alice' };
  const bob = { 'x-test-user': 'bob' };
  beforeAll(async () => {
    ({ instances: all } = await startInstances(2));
    [a, b] = all as [Instance, Instance];
    await call(a.url, 'PUT', '/owned/_doc/1?refresh=true', { n: 1 }, alice);
    await call(a.url, 'PUT', '/owned/_doc/2?refresh=true', { n: 2 }, alice);
  });
  afterAll(async () => {
    for (const instance of all) await instance.stop();
  });

  const missing = { error: { root_cause: [{ type: 'search_context_missing_exception' }] }, status: 404 };

  it('a scroll: only its user reads or clears it', async () => {
    const opened = await call(a.url, 'POST', '/owned/_search?scroll=1m', { size: 1 }, alice);
    const scrollId = (opened.json as { _scroll_id: string })._scroll_id;
    const stolen = await call(b.url, 'POST', '/_search/scroll', { scroll_id: scrollId }, bob);
    expect([stolen.status, stolen.json]).toMatchObject([404, missing]);
    const cleared = await call(b.url, 'DELETE', '/_search/scroll', { scroll_id: scrollId }, bob);
    expect([cleared.status, cleared.json]).toEqual([404, { succeeded: true, num_freed: 0 }]);
    const all = await call(b.url, 'DELETE', '/_search/scroll/_all', undefined, bob);
    expect([all.status, all.json]).toEqual([404, { succeeded: true, num_freed: 0 }]);
    const own = await call(b.url, 'POST', '/_search/scroll', { scroll_id: scrollId }, alice);
    expect(own.status).toBe(200);
    expect((own.json as { hits: { hits: unknown[] } }).hits.hits).toHaveLength(1);
    const freed = await call(a.url, 'DELETE', '/_search/scroll/_all', undefined, alice);
    expect(freed.json).toEqual({ succeeded: true, num_freed: 1 });
  });

  it('a PIT: only its user searches (express, lean and msearch paths) or closes it', async () => {
    const opened = await call(a.url, 'POST', '/owned/_pit?keep_alive=1m', undefined, alice);
    const id = (opened.json as { id: string }).id;
    // POST /_search without a query string is the lean path; with one, express's route.
    const lean = await call(b.url, 'POST', '/_search', { pit: { id } }, bob);
    expect([lean.status, lean.json]).toMatchObject([404, missing]);
    const express = await call(b.url, 'POST', '/_search?size=1', { pit: { id } }, bob);
    expect([express.status, express.json]).toMatchObject([404, missing]);
    const multi = await call(b.url, 'POST', '/_msearch', `{}\n${JSON.stringify({ pit: { id } })}\n`, {
      ...bob,
      'content-type': 'application/x-ndjson',
    });
    expect(multi.json).toMatchObject({ responses: [missing] });
    const closed = await call(b.url, 'DELETE', '/_pit', { id }, bob);
    expect([closed.status, closed.json]).toEqual([404, { succeeded: true, num_freed: 0 }]);
    const own = await call(b.url, 'POST', '/_search', { pit: { id } }, alice);
    expect(own.status).toBe(200);
    const ownMulti = await call(b.url, 'POST', '/_msearch', `{}\n${JSON.stringify({ pit: { id } })}\n`, {
      ...alice,
      'content-type': 'application/x-ndjson',
    });
    expect(ownMulti.json).toMatchObject({ responses: [{ status: 200, hits: { total: { value: 2 } } }] });
    const ownClose = await call(a.url, 'DELETE', '/_pit', { id }, alice);
    expect(ownClose.json).toEqual({ succeeded: true, num_freed: 1 });
  });
});
