import { errors, type Client } from 'es8';
import type { RunningSearchStore } from '../support/start-search-store';
import { startStoreWithIndex, stopStoreWithIndex, uniqueIndexName } from '../support/start-store-with-index';

/**
 * hits.total as Elasticsearch 8 reports it (SearchSourceBuilder.trackTotalHitsUpTo,
 * RestSearchAction.checkRestTotalHits, SearchHits.toXContent), on the fast path, which stops
 * counting past the limit and prunes (search/fast-match/block-max-top-k.ts), and on the SQL path
 * (a sort on _score takes it), through the official client and raw HTTP.
 */
let store: RunningSearchStore;
let es: Client;
const index = uniqueIndexName('tth', 't');
/** More than the default limit of 10,000: "apple" in every document, "banana" in every seventh. */
const DOCS = 10_050;
const BANANAS = Math.ceil(DOCS / 7);

beforeAll(async () => {
  ({ store, es } = await startStoreWithIndex(
    index,
    { mappings: { properties: { body: { type: 'text' } } } },
    Array.from({ length: DOCS }, (_, i) => [
      String(i),
      { body: `apple${i % 7 === 0 ? ' banana' : ''}${i % 13 === 0 ? ' apple' : ''} w${i % 50}` },
    ]),
  ));
}, 120_000);
afterAll(() => stopStoreWithIndex({ store, es }));

async function raw(query: string, body: unknown): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`${store.url}/${index}/_search${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

interface Answer {
  hits: { total?: unknown; hits: unknown[] };
  error: { type: string; reason: string };
}

const APPLE = { match: { body: 'apple banana' } };
/** The same search on the SQL path: a sort on _score is the relevance order, but not the fast path's shape. */
const viaSql = { sort: ['_score'] };

describe('track_total_hits', () => {
  it('counts up to 10,000 by default, relation gte past it, on both paths', async () => {
    for (const extra of [{}, viaSql]) {
      const res = await es.search({ index, query: APPLE, ...extra });
      expect(res.hits.total).toEqual({ value: 10_000, relation: 'gte' });
      expect(res.hits.hits).toHaveLength(10);
    }
    const rare = await es.search({ index, query: { match: { body: 'banana' } } });
    expect(rare.hits.total).toEqual({ value: BANANAS, relation: 'eq' });
  });

  it('counts exactly with true or 2147483647, and the page is the same as with pruning', async () => {
    const exact = await es.search({ index, query: APPLE, track_total_hits: true });
    expect(exact.hits.total).toEqual({ value: DOCS, relation: 'eq' });
    const max = await es.search({ index, query: APPLE, track_total_hits: 2_147_483_647 });
    expect(max.hits.total).toEqual({ value: DOCS, relation: 'eq' });
    const pruned = await es.search({ index, query: APPLE, track_total_hits: 5 });
    expect(pruned.hits.total).toEqual({ value: 5, relation: 'gte' });
    expect(pruned.hits.hits).toEqual(exact.hits.hits);
    expect(pruned.hits.max_score).toBe(exact.hits.max_score);
    const sql = await es.search({ index, query: APPLE, track_total_hits: 5, ...viaSql });
    expect(sql.hits.total).toEqual({ value: 5, relation: 'gte' });
    expect(sql.hits.hits.map((h) => [h._id, h._score])).toEqual(
      exact.hits.hits.map((h) => [h._id, h._score]),
    );
  });

  it('counts up to an integer given in the body or the URL; eq when the count does not pass it', async () => {
    expect((await es.search({ index, query: APPLE, track_total_hits: 150 })).hits.total).toEqual({
      value: 150,
      relation: 'gte',
    });
    const url = await raw('?track_total_hits=150', { query: APPLE, size: 3 });
    expect(url.status).toBe(200);
    expect(url.body.hits.total).toEqual({ value: 150, relation: 'gte' });
    expect(url.body.hits.hits).toHaveLength(3);
    const atCount = await es.search({
      index,
      query: { match: { body: 'banana' } },
      track_total_hits: BANANAS,
    });
    expect(atCount.hits.total).toEqual({ value: BANANAS, relation: 'eq' });
    const zero = await es.search({ index, query: APPLE, track_total_hits: 0, size: 0 });
    expect(zero.hits).toEqual({ total: { value: 0, relation: 'gte' }, max_score: null, hits: [] });
  });

  it('leaves hits.total out with false or -1, on both paths', async () => {
    for (const tth of [false, -1])
      for (const extra of [{}, viaSql]) {
        const res = await raw('', { query: APPLE, track_total_hits: tth, ...extra });
        expect(res.status).toBe(200);
        expect(res.body.hits).not.toHaveProperty('total');
        expect(res.body.hits.hits).toHaveLength(10);
      }
    const client = await es.search({ index, query: APPLE, track_total_hits: false });
    expect(client.hits.total).toBeUndefined();
  });

  it('refuses an integer below -1 with a 400 illegal_argument_exception', async () => {
    const res = await raw('', { query: APPLE, track_total_hits: -2 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'illegal_argument_exception',
      reason: '[track_total_hits] parameter must be positive or equals to -1, got -2',
    });
    const url = await raw('?track_total_hits=-5', { query: APPLE });
    expect(url.status).toBe(400);
    expect(url.body.error.reason).toBe(
      '[track_total_hits] parameter must be positive or equals to -1, got -5',
    );
    const thrown = await es.search({ index, track_total_hits: -7 }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(errors.ResponseError);
    expect((thrown as errors.ResponseError).statusCode).toBe(400);
  });

  it('with rest_total_hits_as_int: counts exactly by default, -1 when not tracked, 400 for a limit', async () => {
    const exact = await raw('?rest_total_hits_as_int=true', { query: APPLE, size: 1 });
    expect(exact.status).toBe(200);
    expect(exact.body.hits.total).toBe(DOCS);
    const off = await raw('?rest_total_hits_as_int=true', { query: APPLE, track_total_hits: false });
    expect(off.body.hits.total).toBe(-1);
    const limited = await raw('?rest_total_hits_as_int=true', { query: APPLE, track_total_hits: 100 });
    expect(limited.status).toBe(400);
    expect(limited.body.error).toMatchObject({
      type: 'illegal_argument_exception',
      reason:
        '[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 100',
    });
  });
});
