import type { Client } from 'es8';
import type { RunningSearchStore } from '../support/start-search-store';
import { startStoreWithIndex, stopStoreWithIndex, uniqueIndexName } from '../support/start-store-with-index';
import { call } from '../support/http';

/**
 * function_score through the official client and raw HTTP on real Postgres. The inner query is
 * match_all (score 1) or a constant score, so each expected score is ES's function arithmetic alone:
 * the function in double, combined, then cast to float (FunctionScoreQuery, CombineFunction).
 */
let store: RunningSearchStore;
let es: Client;
const index = uniqueIndexName('fscore', 'x');

const DOCS: Record<string, Record<string, unknown>> = {
  '1': { title: 'quick fox', popularity: 10, published: '2024-01-10', tag: 'a' },
  '2': { title: 'quick dog', popularity: 0, published: '2024-01-01', tag: 'b' },
  '3': { title: 'lazy dog', popularity: [100, 5], tag: 'a' },
  '4': { title: 'quick' },
};

beforeAll(async () => {
  ({ store, es } = await startStoreWithIndex(
    index,
    {
      mappings: {
        properties: {
          title: { type: 'text' },
          popularity: { type: 'integer' },
          published: { type: 'date' },
          tag: { type: 'keyword' },
        },
      },
    },
    Object.entries(DOCS),
  ));
});
afterAll(() => stopStoreWithIndex({ store, es }));

type Hits = Record<string, number | null | undefined>;

async function scores(functionScore: Record<string, unknown>): Promise<Hits> {
  const res = await es.search({ index, query: { function_score: functionScore } as never });
  return Object.fromEntries(res.hits.hits.map((h) => [h._id!, h._score]));
}

async function searchError(query: unknown): Promise<{ status: number; error: Record<string, unknown> }> {
  const res = await call(store.url, 'POST', `/${index}/_search`, { query });
  return { status: res.status, error: (res.json as { error: Record<string, unknown> }).error };
}

const withPopularity = { exists: { field: 'popularity' } };

describe('function_score functions', () => {
  it('field_value_factor: log10(value × float factor + 1), the first (lowest) of several values', async () => {
    expect(
      await scores({
        query: withPopularity,
        field_value_factor: { field: 'popularity', factor: 1.2, modifier: 'log1p' },
      }),
    ).toEqual({ '1': 1.1139433, '2': 0, '3': 0.8450981 });
    expect(
      await scores({ query: withPopularity, field_value_factor: { field: 'popularity', modifier: 'sqrt' } }),
    ).toEqual({ '1': 3.1622777, '2': 0, '3': 2.236068 });
  });

  it('field_value_factor: a document without the field fails the search unless `missing` is given', async () => {
    const { status, error } = await searchError({
      function_score: { field_value_factor: { field: 'popularity' } },
    });
    expect(status).toBe(400);
    expect(error.type).toBe('search_phase_execution_exception');
    expect(error.root_cause).toEqual([{ type: 'exception', reason: 'Missing value for field [popularity]' }]);
    expect(
      await scores({ field_value_factor: { field: 'popularity', missing: 1, modifier: 'ln2p' } }),
    ).toMatchObject({ '4': 1.0986123, '2': 0.6931472 });
  });

  it('field_value_factor: a negative result is refused, with the hint for ln (0.1 is a float factor)', async () => {
    const { error } = await searchError({
      function_score: {
        query: { ids: { values: ['3'] } },
        field_value_factor: { field: 'popularity', factor: 0.1, modifier: 'ln' },
      },
    });
    expect((error.root_cause as { reason: string }[])[0]!.reason).toBe(
      'field value function must not produce negative scores, but got: [-0.6931471656587842] for field value: [5.0]; consider using ln1p or ln2p instead of ln to avoid negative scores',
    );
  });

  it('gauss, exp and linear decay on a number: missing values score 1, multi_value_mode picks the distance', async () => {
    expect(await scores({ gauss: { popularity: { origin: 0, scale: 10 } } })).toEqual({
      '1': 0.5,
      '2': 1,
      '3': 0.8408964,
      '4': 1,
    });
    expect(
      await scores({ exp: { popularity: { origin: 0, scale: 10 } }, query: { ids: { values: ['1', '3'] } } }),
    ).toEqual({ '1': 0.5, '3': 0.70710677 });
    // max: the farthest value (100), beyond the linear scale's reach (10 / (1 − 0.5) = 20).
    expect(
      await scores({
        query: { ids: { values: ['3'] } },
        linear: { popularity: { origin: 0, scale: 10 }, multi_value_mode: 'max' },
      }),
    ).toEqual({ '3': 0 });
    // offset: distances within 5 of the origin count as 0.
    expect(
      await scores({
        query: { ids: { values: ['3'] } },
        gauss: { popularity: { origin: 0, scale: 10, offset: 5 } },
      }),
    ).toEqual({ '3': 1 });
  });

  it('linear decay on a date: origin in the field format, scale and offset as time values', async () => {
    expect(
      await scores({
        query: { exists: { field: 'published' } },
        linear: { published: { origin: '2024-01-10', scale: '10d' } },
      }),
    ).toEqual({ '1': 1, '2': 0.55 });
  });

  it('random_score with seed and field: in [0, 1), the same on every request, another seed another order', async () => {
    const first = await scores({ random_score: { seed: 42, field: '_seq_no' } });
    const again = await scores({ random_score: { seed: 42, field: '_seq_no' } });
    expect(again).toEqual(first);
    for (const score of Object.values(first)) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThan(1);
    }
    const byTag = await scores({ random_score: { seed: 'abc', field: 'tag' } });
    // Documents with the same value score the same (ES docs).
    expect(byTag['1']).toBe(byTag['3']);
    const unmapped = await searchError({ function_score: { random_score: { seed: 1, field: 'nope' } } });
    expect((unmapped.error.root_cause as { reason: string }[])[0]!.reason).toMatch(
      /^Field \[nope\] is not mapped on \[\[fscore-.*\]\] and cannot be used as a source of random numbers\.$/,
    );
  });

  it('script_score sees _score, params and doc values', async () => {
    expect(
      await scores({
        query: { constant_score: { filter: withPopularity, boost: 2 } },
        script_score: {
          script: { source: "_score * params.k + doc['popularity'].value", params: { k: 3 } },
        },
        boost_mode: 'replace',
      }),
    ).toEqual({ '1': 16, '2': 6, '3': 11 });
    const { error } = await searchError({
      function_score: { script_score: { script: '-1' } },
    });
    expect((error.root_cause as { reason: string }[])[0]!.reason).toBe(
      'script score function must not produce negative scores, but got: [-1.0]',
    );
  });
});

describe('function_score combination', () => {
  const functions = [
    { filter: { term: { tag: 'a' } }, weight: 2 },
    { filter: { match: { title: 'quick' } }, weight: 4 },
  ];

  it('score_mode over the functions whose filter matches; none matching gives 1', async () => {
    expect(await scores({ functions })).toEqual({ '1': 8, '2': 4, '3': 2, '4': 4 });
    expect(await scores({ functions, score_mode: 'sum' })).toEqual({ '1': 6, '2': 4, '3': 2, '4': 4 });
    // avg divides by the weights: (2 + 4) / (2 + 4) = 1.
    expect(await scores({ functions, score_mode: 'avg' })).toEqual({ '1': 1, '2': 1, '3': 1, '4': 1 });
    expect(await scores({ functions, score_mode: 'first' })).toMatchObject({ '1': 2 });
    expect(await scores({ functions, score_mode: 'max' })).toMatchObject({ '1': 4 });
    expect(await scores({ functions, score_mode: 'min' })).toMatchObject({ '1': 2 });
    expect(
      await scores({
        functions: [{ filter: { term: { tag: 'zzz' } }, weight: 9 }],
        query: { ids: { values: ['1'] } },
      }),
    ).toEqual({ '1': 1 });
  });

  it('boost_mode with the query score; boost multiplies the query score only; max_boost caps the factor', async () => {
    const query = { constant_score: { filter: { ids: { values: ['1'] } }, boost: 3 } };
    expect(await scores({ query, weight: 5 })).toEqual({ '1': 15 });
    expect(await scores({ query, weight: 5, boost_mode: 'sum' })).toEqual({ '1': 8 });
    expect(await scores({ query, weight: 5, boost_mode: 'avg' })).toEqual({ '1': 4 });
    expect(await scores({ query, weight: 5, boost_mode: 'min' })).toEqual({ '1': 3 });
    expect(await scores({ query, weight: 5, boost_mode: 'max' })).toEqual({ '1': 5 });
    expect(await scores({ query, weight: 5, boost_mode: 'replace' })).toEqual({ '1': 5 });
    expect(await scores({ query, weight: 5, boost: 2 })).toEqual({ '1': 30 });
    expect(await scores({ query, weight: 5, boost: 2, boost_mode: 'replace' })).toEqual({ '1': 5 });
    expect(await scores({ query, weight: 5, max_boost: 2 })).toEqual({ '1': 6 });
  });

  it('min_score drops documents below it, in a filter context too; without it a filter is the inner query', async () => {
    expect(await scores({ functions, min_score: 4 })).toEqual({ '1': 8, '2': 4, '4': 4 });
    const res = await es.search({
      index,
      query: { bool: { filter: [{ function_score: { functions, min_score: 5 } }] } },
    });
    expect(res.hits.hits.map((h) => h._id)).toEqual(['1']);
    const count = await es.count({
      index,
      query: { function_score: { query: { match: { title: 'quick' } }, weight: 0 } } as never,
    });
    expect(count.count).toBe(3);
  });

  it('with no function it is the inner query; a single function in `functions` is scored alone', async () => {
    expect(
      await scores({ query: { constant_score: { filter: { ids: { values: ['2'] } }, boost: 7 } } }),
    ).toEqual({
      '2': 7,
    });
    // One unfiltered function is FunctionScoreQuery's single-function form: avg does not divide by its weight.
    expect(
      await scores({ query: { ids: { values: ['2'] } }, functions: [{ weight: 3 }], score_mode: 'avg' }),
    ).toEqual({ '2': 3 });
  });
});

describe('function_score with other search options', () => {
  it('explains a hit with its function score value', async () => {
    const res = await es.search({
      index,
      explain: true,
      query: { function_score: { query: { ids: { values: ['1'] } }, weight: 4 } } as never,
    });
    expect(res.hits.hits[0]!._score).toBe(4);
    expect(res.hits.hits[0]!._explanation!.value).toBe(4);
  });
});

describe('function_score errors as Elasticsearch', () => {
  it('refuses a single function beside a functions array, two single functions and unknown fields', async () => {
    let r = await searchError({
      function_score: { functions: [{ weight: 2 }], random_score: {} },
    });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({
      type: 'parsing_exception',
      reason:
        'failed to parse [function_score] query. [you can either define [functions] array or a single function, not both. already found [functions] array, now encountering [random_score].]',
    });
    r = await searchError({ function_score: { random_score: {}, weight: 2 } });
    expect(r.error.reason).toBe(
      'failed to parse [function_score] query. already found function [random_score], now encountering [weight]. use [functions] array if you want to define several functions.',
    );
    r = await searchError({ function_score: { bogus: 1 } });
    expect(r.error.reason).toBe('failed to parse [function_score] query. field [bogus] is not supported');
    r = await searchError({ function_score: { functions: [{ filter: { match_all: {} } }] } });
    expect(r.error.reason).toBe(
      'failed to parse [function_score] query. an entry in functions list is missing a function.',
    );
  });

  it('an unknown function is "unknown query [function_score]"; bad enums are Java valueOf errors', async () => {
    let r = await searchError({ function_score: { functions: [{ decay_fn: {} }] } });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({
      type: 'parsing_exception',
      reason: 'unknown query [function_score] did you mean any of [random_score, script_score]?',
    });
    r = await searchError({ function_score: { weight: 1, score_mode: 'bogus' } });
    expect(r.error).toMatchObject({
      type: 'illegal_argument_exception',
      reason:
        'No enum constant org.elasticsearch.common.lucene.search.function.FunctionScoreQuery.ScoreMode.BOGUS',
    });
    r = await searchError({ function_score: { weight: 1, boost_mode: 'bogus' } });
    expect(r.error.reason).toBe(
      'No enum constant org.elasticsearch.common.lucene.search.function.CombineFunction.BOGUS',
    );
  });

  it('decay: unknown field, a text field, missing origin, bad scale and decay fail the shard', async () => {
    const reason = async (fn: unknown): Promise<string> => {
      const r = await searchError({ function_score: fn });
      expect(r.status).toBe(400);
      expect(r.error.type).toBe('search_phase_execution_exception');
      return (r.error.root_cause as { reason: string }[])[0]!.reason;
    };
    expect(await reason({ gauss: { nope: { origin: 0, scale: 1 } } })).toBe(
      'failed to create query: unknown field [nope]',
    );
    expect(await reason({ gauss: { title: { origin: 0, scale: 1 } } })).toBe(
      'failed to create query: field [title] is of type [text], but only numeric types are supported.',
    );
    expect(await reason({ gauss: { popularity: { scale: 1 } } })).toBe(
      'failed to create query: both [scale] and [origin] must be set for numeric fields.',
    );
    expect(await reason({ exp: { popularity: { origin: 0, scale: 0 } } })).toBe(
      'function_score : scale must be > 0.0.',
    );
    expect(await reason({ exp: { popularity: { origin: 0, scale: 1, decay: 1 } } })).toBe(
      'function_score : decay must be in the range [0..1].',
    );
    expect(await reason({ linear: { published: { origin: '2024-01-01', scale: '1x' } } })).toBe(
      'failed to create query: failed to parse setting [DecayFunctionParser.scale] with value [1x] as a time value: unit is missing or unrecognized',
    );
  });
});
