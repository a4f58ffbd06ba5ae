import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * ES "Term suggester" (search-suggesters.html#term-suggester) through the official client and raw
 * HTTP, on real Postgres. Scores are Lucene's FuzzyTermsEnum boost for the internal distance:
 * 1 − edits / min(len(candidate), len(token)), as float32.
 */
describe('term suggester', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'suggest-term';
  const suggest = async (body: Json) =>
    (await call(server.url, 'POST', `/${index}/_search`, body)).json as Json;
  beforeAll(async () => {
    await es().indices.create({
      index,
      mappings: { properties: { body: { type: 'text' }, tag: { type: 'keyword' } } },
    });
    const bodies = [
      'Amsterdam meetup',
      'amsterdam canals meetup',
      'amsterdam',
      'amsterdan',
      'meetups',
      'the a b',
    ];
    await es().bulk({
      index,
      refresh: true,
      operations: bodies.flatMap((body, i) => [{ index: { _id: String(i) } }, { body, tag: body }]),
    });
  });

  it('suggests a correction for each misspelt token with its offset, length, score and freq (official client)', async () => {
    const response = await es().search({
      index,
      suggest: { fix: { text: 'The Amsterdma meetpu', term: { field: 'body' } } },
    });
    expect(response.suggest!.fix).toEqual([
      // "the" is shorter than min_word_length 4: no options.
      { text: 'the', offset: 0, length: 3, options: [] },
      {
        text: 'amsterdma',
        offset: 4,
        length: 9,
        options: [
          { text: 'amsterdam', score: 0.8888889, freq: 3 },
          { text: 'amsterdan', score: 0.7777778, freq: 1 },
        ],
      },
      {
        text: 'meetpu',
        offset: 14,
        length: 6,
        options: [
          { text: 'meetup', score: 0.8333333, freq: 2 },
          { text: 'meetups', score: 0.6666666, freq: 1 },
        ],
      },
    ]);
    expect(response.hits.hits).toHaveLength(6);
  });

  it('runs with size 0 and no query, taking the global text', async () => {
    const body = await suggest({
      size: 0,
      suggest: { text: 'meetupz', a: { term: { field: 'body' } }, b: { term: { field: 'body', size: 1 } } },
    });
    expect(body.hits.hits).toEqual([]);
    expect(body.hits.total).toEqual({ value: 6, relation: 'eq' });
    // Score order: meetups (1 − 1/7) before meetup (1 − 1/6) though meetup is in more documents.
    expect(body.suggest.a[0].options).toEqual([
      { text: 'meetups', score: 0.85714287, freq: 1 },
      { text: 'meetup', score: 0.8333333, freq: 2 },
    ]);
    expect(body.suggest.b[0].options).toEqual([{ text: 'meetups', score: 0.85714287, freq: 1 }]);
  });

  it('answers the suggestions beside the hits of a match query (never the fast path without them)', async () => {
    const body = await suggest({
      query: { match: { body: 'amsterdam' } },
      suggest: { s: { text: 'amsterdma', term: { field: 'body' } } },
    });
    expect(body.hits.total.value).toBe(3);
    expect(body.suggest.s[0].options[0]).toEqual({ text: 'amsterdam', score: 0.8888889, freq: 3 });
  });

  it('orders by frequency first with sort frequency', async () => {
    const body = await suggest({
      suggest: { s: { text: 'meetupz', term: { field: 'body', sort: 'frequency' } } },
    });
    expect(body.suggest.s[0].options.map((o: Json) => o.text)).toEqual(['meetup', 'meetups']);
  });

  it('suggests for a term in the index only in popular and always modes', async () => {
    const modes = await Promise.all(
      ['missing', 'popular', 'always'].map((mode) =>
        suggest({ suggest: { s: { text: 'amsterdan', term: { field: 'body', suggest_mode: mode } } } }),
      ),
    );
    expect(modes[0]!.suggest.s[0].options).toEqual([]);
    // popular: only terms in more documents than amsterdan's 1.
    expect(modes[1]!.suggest.s[0].options).toEqual([{ text: 'amsterdam', score: 0.8888889, freq: 3 }]);
    expect(modes[2]!.suggest.s[0].options).toEqual([{ text: 'amsterdam', score: 0.8888889, freq: 3 }]);
    // missing with a term absent from the index (max_term_freq does not apply to df 0).
    const popularOnly = await suggest({
      suggest: { s: { text: 'amsterdax', term: { field: 'body', suggest_mode: 'popular' } } },
    });
    expect(popularOnly.suggest.s[0].options).toEqual([
      { text: 'amsterdam', score: 0.8888889, freq: 3 },
      { text: 'amsterdan', score: 0.8888889, freq: 1 },
    ]);
  });

  it('honours max_edits, prefix_length, min_word_length, min_doc_freq and max_term_freq', async () => {
    const run = async (text: string, options: Json) =>
      (
        (await suggest({ suggest: { s: { text, term: { field: 'body', ...options } } } })).suggest.s[0]
          .options as Json[]
      ).map((o) => `${o.text}:${o.score}`);
    expect(await run('amstrdma', {})).toEqual(['amsterdam:0.75']);
    expect(await run('amstrdma', { max_edits: 1 })).toEqual([]);
    expect(await run('bmsterdam', {})).toEqual([]);
    // The second pass (two edits) keeps a prefix of max_edits − 1 = 1: amsterdan is not reached.
    expect(await run('bmsterdam', { prefix_length: 0 })).toEqual(['amsterdam:0.8888889']);
    expect(await run('meetpu', { min_word_length: 7 })).toEqual([]);
    // DirectSpellChecker keeps candidates in MORE documents than the threshold.
    expect(await run('meetpu', { min_doc_freq: 1 })).toEqual(['meetup:0.8333333']);
    expect(await run('meetpu', { min_doc_freq: 2 })).toEqual([]);
    expect(await run('meetpu', { accuracy: 0.7 })).toEqual(['meetup:0.8333333']);
    // amsterdan is in 1 of 6 documents: corrected with max_term_freq 1, not below it (0.1 → ceil 0.6 = 1 still).
    expect(await run('amsterdan', { suggest_mode: 'always', max_term_freq: 1 })).toEqual([
      'amsterdam:0.8888889',
    ]);
    expect(await run('amsterdam', { suggest_mode: 'always', max_term_freq: 2 })).toEqual([]);
  });

  it('uses a keyword field whole and a named analyzer', async () => {
    const body = await suggest({
      suggest: {
        k: { text: 'amsterdam canals meetpu', term: { field: 'tag' } },
        w: { text: 'AMSTERDMA', term: { field: 'body', analyzer: 'whitespace' } },
      },
    });
    expect(body.suggest.k[0]).toEqual({
      text: 'amsterdam canals meetpu',
      offset: 0,
      length: 23,
      options: [{ text: 'amsterdam canals meetup', score: 0.95652175, freq: 1 }],
    });
    // whitespace keeps the case: no dictionary term is within two edits.
    expect(body.suggest.w[0]).toEqual({ text: 'AMSTERDMA', offset: 0, length: 9, options: [] });
  });

  it('merges the options of several indices, summing freq', async () => {
    const other = 'suggest-term-2';
    await es().index({ index: other, id: '1', document: { body: 'amsterdam' }, refresh: true });
    const body = (
      await call(server.url, 'POST', `/${index},${other}/_search`, {
        size: 0,
        suggest: { s: { text: 'amsterdma', term: { field: 'body' } } },
      })
    ).json as Json;
    expect(body.suggest.s[0].options).toEqual([
      { text: 'amsterdam', score: 0.8888889, freq: 4 },
      { text: 'amsterdan', score: 0.7777778, freq: 1 },
    ]);
  });

  it('refuses bad options with Elasticsearch errors (raw HTTP)', async () => {
    const bad = async (s: Json) => {
      const response = await call(server.url, 'POST', `/${index}/_search`, { suggest: s });
      return { status: response.status, error: (response.json as Json).error };
    };
    let r = await bad({ s: { text: 'x', term: { field: 'body', max_edits: 3 } } });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'maxEdits must be between 1 and 2',
    });
    r = await bad({ s: { text: 'x', term: { field: 'body', size: 0 } } });
    expect(r.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'size must be positive' });
    r = await bad({ s: { text: 'x', term: { field: 'body', bogus: 1 } } });
    expect(r.error).toMatchObject({
      type: 'parsing_exception',
      reason: "suggester[term] doesn't support field [bogus]",
    });
    r = await bad({ s: { text: 'x', term: { size: 2 } } });
    expect(r.error).toMatchObject({
      type: 'parse_exception',
      reason: 'the required field option [field] is missing',
    });
    r = await bad({ s: { text: 'x', term: { field: 'body', suggest_mode: 'sometimes' } } });
    expect(r.error.type).toBe('illegal_argument_exception');
    r = await bad({ s: { text: 'x' } });
    expect(r.error).toMatchObject({ type: 'parse_exception', reason: 'missing suggestion object' });
    r = await bad({ s: { text: 'x', nope: { field: 'body' } } });
    expect(r.error.type).toBe('x_content_parse_exception');
    r = await bad({ s: { text: 'x', term: { field: 'nope' } } });
    expect(r.status).toBe(400);
    expect(r.error.type).toBe('search_phase_execution_exception');
    expect(r.error.root_cause[0]).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'no mapping found for field [nope]',
    });
    r = await bad({ s: { term: { field: 'body' } } });
    expect(r.error.root_cause[0]).toMatchObject({ reason: 'The required text option is missing' });
  });
});
