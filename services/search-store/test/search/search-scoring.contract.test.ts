import {
  startSearchFixture,
  expectedTermScore,
  sumScores,
  formatFloat,
  idfSum,
  type SearchFixture,
} from './search-fixture';

let fx: SearchFixture;
beforeAll(async () => (fx = await startSearchFixture()));
afterAll(() => fx.stop());

const TITLE = { docCount: 3, sumTtf: 9 };
const BODY = { docCount: 4, sumTtf: 29 };
const TAGS = { docCount: 3, sumTtf: 4 };

async function scores(query: Record<string, unknown>): Promise<Record<string, number | null | undefined>> {
  const res = await fx.es.search({ index: fx.articles.name, query });
  return Object.fromEntries(res.hits.hits.map((h) => [h._id, h._score]));
}

describe('match scoring equals the BM25 formula in float32', () => {
  it('scores the worked example 1.135697 (title:fox, lengths 2, 3, 4)', async () => {
    const res = await fx.es.search({ index: fx.articles.name, query: { match: { title: 'fox' } } });
    expect(res.hits.hits.map((h) => [h._id, h._score])).toEqual([['1', 1.135697]]);
    expect(res.hits.max_score).toBe(1.135697);
    expect(res.hits.total).toEqual({ value: 1, relation: 'eq' });
  });

  it('sums the term scores of an OR match and orders by score', async () => {
    const fox = expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 });
    const quick1 = expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 });
    const quick3 = expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 });
    const fox4 = expectedTermScore({ ...BODY, df: 2, freq: 3, dl: 4 });
    const res = await fx.es.search({ index: fx.articles.name, query: { match: { body: 'quick fox' } } });
    expect(res.hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['1', sumScores(quick1, fox)],
      ['4', formatFloat(fox4)],
      ['3', formatFloat(quick3)],
    ]);
  });

  it('requires every term with operator and, and the computed number with minimum_should_match', async () => {
    expect(await scores({ match: { body: { query: 'quick fox', operator: 'and' } } })).toEqual({
      '1': sumScores(
        expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 }),
        expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 }),
      ),
    });
    expect(
      Object.keys(
        await scores({ match: { body: { query: 'quick fox hill', minimum_should_match: '2' } } }),
      ).sort(),
    ).toEqual(['1', '3']);
    expect(
      Object.keys(
        await scores({ match: { body: { query: 'quick fox hill', minimum_should_match: '-1' } } }),
      ).sort(),
    ).toEqual(['1', '3']);
    expect(
      Object.keys(
        await scores({ match: { body: { query: 'quick fox hill', minimum_should_match: '100%' } } }),
      ),
    ).toEqual([]);
  });

  it('pushes a boost into the term weights', async () => {
    expect(await scores({ match: { title: { query: 'fox', boost: 2 } } })).toEqual({
      '1': formatFloat(expectedTermScore({ ...TITLE, df: 1, freq: 1, dl: 2, boost: 2 })),
    });
  });

  it('scores match_phrase with the summed idf and the phrase frequency, with slop', async () => {
    const idf = idfSum([2, 1], 4);
    expect(await scores({ match_phrase: { body: 'quick brown' } })).toEqual({
      '1': formatFloat(expectedTermScore({ ...BODY, df: 0, idf, freq: 1, dl: 9 })),
    });
    expect(await scores({ match_phrase: { body: 'quick fox' } })).toEqual({});
    expect(await scores({ match_phrase: { body: { query: 'quick fox', slop: 1 } } })).toEqual({
      '1': formatFloat(expectedTermScore({ ...BODY, df: 0, idf: idfSum([2, 2], 4), freq: 0.5, dl: 9 })),
    });
  });

  it('scores match_phrase_prefix as a phrase whose last term is expanded, and one word as its expansions', async () => {
    expect(await scores({ match_phrase_prefix: { body: 'quick br' } })).toEqual({
      '1': formatFloat(expectedTermScore({ ...BODY, df: 0, idf: idfSum([2, 1], 4), freq: 1, dl: 9 })),
    });
    expect(await scores({ match_phrase_prefix: { body: 'qui' } })).toEqual({
      '1': formatFloat(expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 })),
      '3': formatFloat(expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 })),
    });
    expect(await scores({ match_phrase_prefix: { body: 'quick zz' } })).toEqual({});
    expect(
      Object.keys(
        await scores({ multi_match: { query: 'lazy d', type: 'phrase_prefix', fields: ['title', 'body'] } }),
      ).sort(),
    ).toEqual(['1', '2']);
  });

  it('combines multi_match best_fields with tie_breaker and most_fields as a sum', async () => {
    const title2 = sumScores(
      expectedTermScore({ ...TITLE, df: 1, freq: 1, dl: 3 }),
      expectedTermScore({ ...TITLE, df: 1, freq: 1, dl: 3 }),
    );
    const body2 = sumScores(
      expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 7 }),
      expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 7 }),
    );
    const body1 = sumScores(
      expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 }),
      expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 }),
    );
    const best = await scores({
      multi_match: { query: 'lazy dog', fields: ['title', 'body'], tie_breaker: 0.3 },
    });
    expect(best).toEqual({
      '2': formatFloat(Math.fround(Math.max(title2, body2) + Math.min(title2, body2) * Math.fround(0.3))),
      '1': body1,
    });
    const most = await scores({
      multi_match: { query: 'lazy dog', fields: ['title^2', 'body'], type: 'most_fields' },
    });
    const title2Boosted = sumScores(
      expectedTermScore({ ...TITLE, df: 1, freq: 1, dl: 3, boost: 2 }),
      expectedTermScore({ ...TITLE, df: 1, freq: 1, dl: 3, boost: 2 }),
    );
    expect(most).toEqual({ '2': sumScores(title2Boosted, body2), '1': body1 });
  });

  it('scores a keyword term by BM25 with keyword statistics, and constant queries by their boost', async () => {
    expect(await scores({ term: { tags: 'animal' } })).toEqual({
      '1': formatFloat(expectedTermScore({ ...TAGS, df: 2, freq: 1, dl: 1 })),
      '2': formatFloat(expectedTermScore({ ...TAGS, df: 2, freq: 1, dl: 1 })),
    });
    expect(await scores({ constant_score: { filter: { term: { tags: 'farm' } }, boost: 3 } })).toEqual({
      '3': 3,
    });
    expect(await scores({ range: { views: { gte: 10, boost: 2 } } })).toEqual({ '1': 2, '3': 2 });
    expect(await scores({ terms: { tags: ['farm', 'fast'] } })).toEqual({ '1': 1, '3': 1 });
  });

  it('sums bool must and should, adds nothing for filter, and excludes must_not', async () => {
    const fox1 = expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 });
    const quick1 = expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 });
    const res = await scores({
      bool: {
        must: [{ match: { body: 'fox' } }],
        should: [{ match: { body: 'quick' } }],
        filter: [{ range: { views: { gte: 1 } } }],
        must_not: [{ term: { draft: true } }],
      },
    });
    expect(res).toEqual({ '1': sumScores(fox1, quick1) });
    expect(await scores({ bool: { filter: [{ term: { tags: 'animal' } }] } })).toEqual({ '1': 0, '2': 0 });
    expect(await scores({ bool: { must_not: [{ exists: { field: 'title' } }] } })).toEqual({ '4': 0 });
    expect(
      Object.keys(
        await scores({
          bool: {
            should: [{ term: { tags: 'farm' } }, { term: { tags: 'fast' } }, { term: { views: 5 } }],
            minimum_should_match: 1,
          },
        }),
      ).sort(),
    ).toEqual(['1', '2', '3']);
  });
});

describe('statistics stay exact through the document APIs', () => {
  it('rescores after a replace and a delete with the live statistics', async () => {
    const index = `live-${fx.suffix}`;
    await fx.es.indices.create({ index, mappings: { properties: { t: { type: 'text' } } } });
    await fx.es.index({ index, id: 'a', document: { t: 'fox' } });
    await fx.es.index({ index, id: 'b', document: { t: 'fox and hound' } });
    await fx.es.index({ index, id: 'c', document: { t: 'cat' }, refresh: true });
    const s = async () => scoresIn(index, { match: { t: 'fox' } });
    expect(await s()).toEqual({
      a: formatFloat(expectedTermScore({ docCount: 3, sumTtf: 5, df: 2, freq: 1, dl: 1 })),
      b: formatFloat(expectedTermScore({ docCount: 3, sumTtf: 5, df: 2, freq: 1, dl: 3 })),
    });
    await fx.es.index({ index, id: 'b', document: { t: 'fox fox' }, refresh: true });
    expect(await s()).toEqual({
      b: formatFloat(expectedTermScore({ docCount: 3, sumTtf: 4, df: 2, freq: 2, dl: 2 })),
      a: formatFloat(expectedTermScore({ docCount: 3, sumTtf: 4, df: 2, freq: 1, dl: 1 })),
    });
    await fx.es.delete({ index, id: 'a', refresh: true });
    expect(await s()).toEqual({
      b: formatFloat(expectedTermScore({ docCount: 2, sumTtf: 3, df: 1, freq: 2, dl: 2 })),
    });
    await fx.es.bulk({
      refresh: true,
      operations: [
        { delete: { _index: index, _id: 'b' } },
        { update: { _index: index, _id: 'c' } },
        { doc: { t: 'fox cat' } },
      ],
    });
    expect(await s()).toEqual({
      c: formatFloat(expectedTermScore({ docCount: 1, sumTtf: 2, df: 1, freq: 1, dl: 2 })),
    });
  });
});

async function scoresIn(
  index: string,
  query: Record<string, unknown>,
): Promise<Record<string, number | null | undefined>> {
  const res = await fx.es.search({ index, query });
  return Object.fromEntries(res.hits.hits.map((h) => [h._id, h._score]));
}
