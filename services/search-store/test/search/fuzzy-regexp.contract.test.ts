import type { Client } from 'es8';
import type { RunningSearchStore } from '../support/start-search-store';
import { startStoreWithIndex, stopStoreWithIndex, uniqueIndexName } from '../support/start-store-with-index';
import { call } from '../support/http';

/**
 * fuzzy, match with fuzziness and regexp through the official client and raw HTTP, on real Postgres.
 * `name` holds 5 documents, 7 tokens: avgdl 1.4; "quick" is in docs 1 and 3 (df 2), "quack" in 2.
 */
let store: RunningSearchStore;
let es: Client;
const index = uniqueIndexName('fuzzy', 'x');

const DOCS: Record<string, Record<string, unknown>> = {
  '1': { name: 'quick', code: 'ABC-1', count: 1 },
  '2': { name: 'quack', code: 'abd-2' },
  '3': { name: 'quick quick brown', code: 'xyz' },
  '4': { name: 'slow' },
  '5': { name: 'quicker' },
};

beforeAll(async () => {
  ({ store, es } = await startStoreWithIndex(
    index,
    {
      settings: { 'index.max_regex_length': 20 },
      mappings: {
        properties: {
          name: { type: 'text' },
          code: { type: 'keyword' },
          count: { type: 'integer' },
        },
      },
    },
    Object.entries(DOCS),
  ));
});
afterAll(() => stopStoreWithIndex({ store, es }));

async function hits(query: Record<string, unknown>): Promise<[string, number | null | undefined][]> {
  const res = await es.search({ index, query });
  return res.hits.hits.map((h) => [h._id!, h._score]);
}

async function searchError(query: unknown): Promise<{ status: number; error: Record<string, unknown> }> {
  const res = await call(store.url, 'POST', `/${index}/_search`, { query });
  return { status: res.status, error: (res.json as { error: Record<string, unknown> }).error };
}

describe('fuzzy query (Lucene FuzzyQuery, blended top-terms rewrite)', () => {
  it('scores quikc~AUTO as Elasticsearch: one transposition, boost 0.8, BM25 with df 2', async () => {
    // boost = 1 - edits/min(5, 5) = 0.8f (FuzzyTermsEnum); idf = ln(1 + (5 - 2 + 0.5)/(2 + 0.5));
    // weight = 0.8 · 2.2 · idf; doc 1 (freq 1, dl 1): w − w/(1 + 1/(1.2·(0.25 + 0.75·1/1.4))) = 0.7930717;
    // doc 3 (freq 2, dl 3) = 0.7287685, all in float32.
    expect(await hits({ fuzzy: { name: 'quikc' } })).toEqual([
      ['1', 0.7930717],
      ['3', 0.7287685],
    ]);
    expect(await hits({ fuzzy: { name: { value: 'quikc', transpositions: false } } })).toEqual([]);
  });

  it('blends document frequencies: quack scores with the df of quick (2), not its own (1)', async () => {
    expect(await hits({ fuzzy: { name: { value: 'quick', fuzziness: 1 } } })).toEqual([
      ['1', 0.99133956],
      ['3', 0.9109607],
      ['2', 0.7930717],
    ]);
    // top_terms_N scores each term with its own df: quack's idf is larger.
    expect(
      await hits({ fuzzy: { name: { value: 'quick', fuzziness: 1, rewrite: 'top_terms_10' } } }),
    ).toContainEqual(['2', 1.2558197]);
  });

  it('keeps the max_expansions terms of highest boost, and honours prefix_length and boost', async () => {
    expect(await hits({ fuzzy: { name: { value: 'quick', fuzziness: 1, max_expansions: 1 } } })).toEqual([
      ['1', 0.99133956],
      ['3', 0.9109607],
    ]);
    expect(await hits({ fuzzy: { name: { value: 'xuick', fuzziness: 1 } } })).toHaveLength(2);
    expect(await hits({ fuzzy: { name: { value: 'xuick', fuzziness: 1, prefix_length: 1 } } })).toEqual([]);
    expect(await hits({ fuzzy: { name: { value: 'quick', fuzziness: 2 } } })).toHaveLength(4);
    expect(await hits({ fuzzy: { name: { value: 'quikc', boost: 2, rewrite: 'constant_score' } } })).toEqual([
      ['1', 2],
      ['3', 2],
    ]);
  });

  it('matches whole keyword values: ABC-2 ~1 ABC-1 (boost 0.8, df 1 of 3, dl 1 = avgdl)', async () => {
    expect(await hits({ fuzzy: { code: { value: 'ABC-2', fuzziness: 1 } } })).toEqual([['1', 0.7846634]]);
  });

  it('refuses bad fuzziness, unknown parameters and non-string fields with ES errors', async () => {
    expect(await searchError({ fuzzy: { name: { value: 'x', fuzziness: 'abc' } } })).toMatchObject({
      status: 400,
      error: {
        type: 'illegal_argument_exception',
        reason: 'fuzziness cannot be [abc].',
        caused_by: { type: 'number_format_exception', reason: 'For input string: "ABC"' },
      },
    });
    expect(await searchError({ fuzzy: { name: { value: 'x', fuzziness: 5 } } })).toMatchObject({
      status: 400,
      error: { type: 'illegal_argument_exception', reason: 'Valid edit distances are [0, 1, 2] but was [5]' },
    });
    expect(await searchError({ fuzzy: { name: { value: 'x', slop: 1 } } })).toMatchObject({
      status: 400,
      error: { type: 'parsing_exception', reason: '[fuzzy] query does not support [slop]' },
    });
    const numeric = await searchError({ fuzzy: { count: 1 } });
    expect(numeric.status).toBe(400);
    expect(numeric.error).toMatchObject({
      type: 'search_phase_execution_exception',
      root_cause: [
        {
          type: 'query_shard_exception',
          reason:
            'failed to create query: Can only use fuzzy queries on keyword and text fields - not on [count] which is of type [integer]',
        },
      ],
    });
  });
});

describe('match and multi_match with fuzziness', () => {
  it('builds one fuzzy query per token and sums them: quikc brwn', async () => {
    // doc 3: quick (boost 0.8, df 2, freq 2, dl 3) 0.7287685 + brown (1 - 1/min(5, 4) = 0.75, df 1) 0.70848227
    expect(await hits({ match: { name: { query: 'quikc brwn', fuzziness: 'AUTO' } } })).toEqual([
      ['3', 1.4372509],
      ['1', 0.7930717],
    ]);
    expect(
      await hits({ match: { name: { query: 'quikc brwn', fuzziness: 'AUTO', operator: 'and' } } }),
    ).toEqual([['3', 1.4372509]]);
    expect(await hits({ multi_match: { query: 'quikc', fields: ['name'], fuzziness: 1 } })).toEqual([
      ['1', 0.7930717],
      ['3', 0.7287685],
    ]);
    expect(await hits({ match: { name: { query: 'quikc', fuzziness: 'AUTO:6,8' } } })).toEqual([]);
  });
});

describe('regexp query (Lucene RegexpQuery, constant score)', () => {
  it('matches whole terms, scores the boost, and reads flags and case_insensitive', async () => {
    expect(await hits({ regexp: { name: 'qu[ai]ck' } })).toEqual([
      ['1', 1],
      ['2', 1],
      ['3', 1],
    ]);
    expect(await hits({ regexp: { name: { value: 'qu.*', boost: 3 } } })).toHaveLength(4);
    expect((await hits({ regexp: { name: { value: 'qu.*', boost: 3 } } }))[0]![1]).toBe(3);
    expect(await hits({ regexp: { name: { value: '@&~(quick)', flags: 'ALL' } } })).toHaveLength(4);
    expect(await hits({ regexp: { name: { value: '@', flags: 'NONE' } } })).toEqual([]);
    expect(await hits({ regexp: { code: 'ab.*' } })).toEqual([['2', 1]]);
    expect(await hits({ regexp: { code: { value: 'ab.*', case_insensitive: true } } })).toEqual([
      ['1', 1],
      ['2', 1],
    ]);
  });

  it('refuses a pattern longer than index.max_regex_length with ES message', async () => {
    const res = await searchError({ regexp: { name: 'a'.repeat(21) } });
    expect(res.status).toBe(400);
    expect(res.error).toMatchObject({
      type: 'search_phase_execution_exception',
      root_cause: [
        {
          type: 'query_shard_exception',
          reason:
            'failed to create query: The length of regex [21] used in the Regexp Query request has exceeded the allowed maximum of [20]. This maximum can be set by changing the [index.max_regex_length] index level setting.',
        },
      ],
    });
  });

  it('refuses unknown flags, bad syntax and too complex automata', async () => {
    expect(await searchError({ regexp: { name: { value: 'a', flags: 'INTERSECTION|FOO' } } })).toMatchObject({
      status: 400,
      error: { type: 'illegal_argument_exception', reason: 'Unknown regexp flag [FOO]' },
    });
    const syntax = await searchError({ regexp: { name: 'a(b' } });
    expect(syntax.status).toBe(400);
    expect(syntax.error.root_cause).toEqual([
      expect.objectContaining({
        type: 'query_shard_exception',
        reason: "failed to create query: expected ')' at position 3",
      }),
    ]);
    const complex = await searchError({
      regexp: { name: { value: '[ab]*a[ab]{14}', max_determinized_states: 100 } },
    });
    expect(complex.status).toBe(400);
    expect(complex.error.caused_by).toMatchObject({
      type: 'query_shard_exception',
      caused_by: { type: 'too_complex_to_determinize_exception' },
    });
  });

  it('stays fast on a pathological pattern over a long term', async () => {
    await es.index({ index, id: 'long', document: { code: 'a'.repeat(2000) }, refresh: true });
    const started = Date.now();
    expect(await hits({ regexp: { code: '(a*)*b' } })).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
    await es.delete({ index, id: 'long', refresh: true });
  });
});
