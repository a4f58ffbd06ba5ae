import type { Client } from 'es8';
import type { RunningSearchStore } from '../support/start-search-store';
import { startStoreWithIndex, stopStoreWithIndex, uniqueIndexName } from '../support/start-store-with-index';
import { call } from '../support/http';
import { formatFloat } from '../../src/query/score/bm25';

/**
 * rescore (ES QueryRescorer) on real Postgres. The first pass is match_all (score 1 each) so each
 * expected score is the rescorer's float arithmetic; ties keep index order (Lucene doc id order).
 */
let store: RunningSearchStore;
let es: Client;
const index = uniqueIndexName('rescore', 'r');

beforeAll(async () => {
  ({ store, es } = await startStoreWithIndex(
    index,
    {
      settings: { 'index.max_rescore_window': 50 },
      mappings: { properties: { title: { type: 'text' }, n: { type: 'integer' } } },
    },
    ['quick brown fox', 'quick dog', 'brown dog', 'the lazy fox'].map((title, i) => [
      String(i + 1),
      { title, n: i + 1 },
    ]),
  ));
});
afterAll(() => stopStoreWithIndex({ store, es }));

const boostTwoAndThree = { constant_score: { filter: { ids: { values: ['2', '3'] } }, boost: 5 } };

async function ranked(body: Record<string, unknown>): Promise<[string, number][]> {
  const res = await call(store.url, 'POST', `/${index}/_search`, { query: { match_all: {} }, ...body });
  expect(res.status).toBe(200);
  const json = res.json as {
    hits: { max_score: number; total: { value: number }; hits: { _id: string; _score: number }[] };
  };
  expect(json.hits.total.value).toBe(4);
  expect(json.hits.max_score).toBe(json.hits.hits[0]?._score);
  return json.hits.hits.map((h) => [h._id, h._score]);
}

async function failure(
  body: Record<string, unknown>,
  path = `/${index}/_search`,
): Promise<{ status: number; error: Record<string, unknown> }> {
  const res = await call(store.url, 'POST', path, body);
  return { status: res.status, error: (res.json as { error: Record<string, unknown> }).error };
}

describe('rescore', () => {
  it('rescores only the window: a match beyond it keeps its first-pass score', async () => {
    const res = await es.search({
      index,
      query: { match_all: {} },
      rescore: { window_size: 2, query: { rescore_query: boostTwoAndThree } },
    });
    expect(res.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['2', 6],
      ['1', 1],
      ['3', 1],
      ['4', 1],
    ]);
  });

  it('weighs both scores in float and combines them by score_mode', async () => {
    const rescore = (scoreMode: string) => ({
      window_size: 10,
      query: {
        rescore_query: boostTwoAndThree,
        query_weight: 0.7,
        rescore_query_weight: 1.2,
        score_mode: scoreMode,
      },
    });
    // Computed in float32, printed as the shortest decimal that reads back as that float (as ES prints).
    const f = (x: number): number => formatFloat(Math.fround(x));
    const a = Math.fround(1 * Math.fround(0.7));
    const b = Math.fround(5 * Math.fround(1.2));
    expect(await ranked({ rescore: rescore('total') })).toEqual([
      ['2', f(a + b)],
      ['3', f(a + b)],
      ['1', f(a)],
      ['4', f(a)],
    ]);
    expect((await ranked({ rescore: rescore('multiply') }))[0]).toEqual(['2', f(a * b)]);
    expect((await ranked({ rescore: rescore('avg') }))[0]).toEqual(['2', f(Math.fround(a + b) / 2)]);
    expect((await ranked({ rescore: rescore('max') }))[0]).toEqual(['2', f(b)]);
    expect(await ranked({ rescore: rescore('min') })).toEqual([
      ['1', f(a)],
      ['2', f(a)],
      ['3', f(a)],
      ['4', f(a)],
    ]);
  });

  it('adds a BM25 rescore query score to the first pass exactly', async () => {
    const alone = await es.search({ index, query: { match: { title: 'quick' } } });
    const scoreOf = new Map(alone.hits.hits.map((h) => [h._id, h._score!]));
    const hits = await ranked({ rescore: { query: { rescore_query: { match: { title: 'quick' } } } } });
    expect(hits.slice(0, 2)).toEqual([
      ['2', formatFloat(Math.fround(1 + Math.fround(scoreOf.get('2')!)))],
      ['1', formatFloat(Math.fround(1 + Math.fround(scoreOf.get('1')!)))],
    ]);
  });

  it('applies an array of rescorers in turn, each on the order the previous left', async () => {
    const hits = await ranked({
      size: 2,
      rescore: [
        { window_size: 2, query: { rescore_query: boostTwoAndThree } },
        // Now doc 2 (6) and doc 1 (1) lead: only they are in the second window.
        {
          window_size: 2,
          query: {
            rescore_query: { ids: { values: ['1', '4'] } },
            score_mode: 'multiply',
            rescore_query_weight: 10,
          },
        },
      ],
    });
    expect(hits).toEqual([
      ['1', 10],
      ['2', 6],
    ]);
  });

  it('pages with from and size over the rescored order', async () => {
    expect(
      await ranked({
        from: 1,
        size: 2,
        rescore: { window_size: 4, query: { rescore_query: boostTwoAndThree } },
      }),
    ).toEqual([
      ['3', 6],
      ['1', 1],
    ]);
  });

  it('refuses a sort, a scroll and a window beyond index.max_rescore_window as ES', async () => {
    let r = await failure({ sort: [{ n: 'asc' }], rescore: { query: { rescore_query: { match_all: {} } } } });
    expect(r.status).toBe(400);
    expect(r.error.type).toBe('search_phase_execution_exception');
    expect(r.error.root_cause).toEqual([
      {
        type: 'illegal_argument_exception',
        reason: 'Cannot use [sort] option in conjunction with [rescore].',
      },
    ]);
    expect(
      (
        await ranked({
          sort: ['_score'],
          rescore: { window_size: 1, query: { rescore_query: boostTwoAndThree } },
        })
      )[0],
    ).toEqual(['1', 1]);
    r = await failure(
      { rescore: { query: { rescore_query: { match_all: {} } } } },
      `/${index}/_search?scroll=1m`,
    );
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: using [rescore] is not allowed in a scroll context;',
    });
    r = await failure({ rescore: { window_size: 51, query: { rescore_query: { match_all: {} } } } });
    expect((r.error.root_cause as { reason: string }[])[0]!.reason).toBe(
      'Rescore window [51] is too large. It must be less than [50]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.',
    );
  });

  it('refuses malformed rescorers as RescorerBuilder and QueryRescorerBuilder do', async () => {
    let r = await failure({ rescore: { window_size: 2 } });
    expect(r.error).toMatchObject({ type: 'parsing_exception', reason: 'missing rescore type' });
    r = await failure({ rescore: { query: { query_weight: 2 } } });
    expect(r.error).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'rescore_query cannot be null',
    });
    r = await failure({ rescore: { query: { rescore_query: { match_all: {} }, score_mode: 'sideways' } } });
    expect(r.error.type).toBe('x_content_parse_exception');
    expect(r.error.reason).toMatch(/\[query\] failed to parse field \[score_mode\]$/);
    expect(r.error.caused_by).toEqual({
      type: 'illegal_argument_exception',
      reason: 'illegal score_mode [sideways]',
    });
    r = await failure({ rescore: { query: { rescore_query: { match_all: {} } }, bogus: 1 } });
    expect(r.error).toMatchObject({ type: 'parsing_exception', reason: "rescore doesn't support [bogus]" });
    r = await failure({ rescore: { query: { rescore_query: { match_all: {} }, weight: 1 } } });
    expect(r.error.reason).toMatch(/\[query\] unknown field \[weight\]$/);
  });
});
