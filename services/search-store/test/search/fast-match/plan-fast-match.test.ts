import { openMappingReaders } from '../../../src/search/fast-match/open-mapping-readers';
import { isFastMatchRequest, planFastMatch } from '../../../src/search/fast-match/plan-fast-match';
import { parseSearchRequest } from '../../../src/query/parse/search-request';

const [reader] = openMappingReaders([
  {
    index_id: '1',
    name: 'articles',
    uuid: 'u',
    settings: {},
    mappings: {
      properties: {
        title: { type: 'text' },
        body: { type: 'text' },
        tag: { type: 'keyword', normalizer: 'lowercase' },
        views: { type: 'integer' },
      },
    },
  },
]);

const plan = (body: Record<string, unknown>) => planFastMatch(reader!, parseSearchRequest(body, {}));

describe('planFastMatch turns covered queries into the scoring tree of the SQL plans', () => {
  it('plans match as term clauses with the analyzed terms, duplicates kept, and the required count', () => {
    expect(
      plan({ query: { match: { body: { query: 'Quick fox, quick!', minimum_should_match: '-1' } } } }),
    ).toEqual({
      reader,
      root: { kind: 'terms', path: 'body', terms: ['quick', 'fox', 'quick'], required: 2, boost: 1 },
      fields: ['body'],
      terms: [
        { path: 'body', term: 'quick' },
        { path: 'body', term: 'fox' },
      ],
      conjunctive: false,
    });
    expect(plan({ query: { match: { body: { query: 'quick fox', operator: 'and' } } } })?.conjunctive).toBe(
      true,
    );
  });

  it('requires every term with operator and, and pushes boosts down as float32', () => {
    expect(plan({ query: { match: { body: { query: 'a b', operator: 'and', boost: 1.1 } } } })?.root).toEqual(
      {
        kind: 'terms',
        path: 'body',
        terms: ['a', 'b'],
        required: 2,
        boost: Math.fround(1.1),
      },
    );
  });

  it('plans multi_match per field with the field boosts, and bool with its minimum_should_match', () => {
    expect(
      plan({ query: { multi_match: { query: 'fox', fields: ['title^2', 'body'], tie_breaker: 0.3 } } })?.root,
    ).toEqual({
      kind: 'dis_max',
      tieBreaker: 0.3,
      parts: [
        { kind: 'terms', path: 'title', terms: ['fox'], required: 1, boost: 2 },
        { kind: 'terms', path: 'body', terms: ['fox'], required: 1, boost: 1 },
      ],
    });
    expect(
      plan({ query: { bool: { should: [{ match: { body: 'a' } }, { match: { missing: 'b' } }] } } })?.root,
    ).toEqual({
      kind: 'bool',
      must: [],
      filter: [],
      mustNot: [],
      should: [{ kind: 'terms', path: 'body', terms: ['a'], required: 1, boost: 1 }, { kind: 'none' }],
      minimumShouldMatch: 1,
    });
  });

  it('plans term, terms and match on keyword fields through the normalizer', () => {
    expect(plan({ query: { term: { tag: 'Farm' } } })?.root).toEqual({
      kind: 'terms',
      path: 'tag',
      terms: ['farm'],
      required: 1,
      boost: 1,
    });
    expect(plan({ query: { match: { tag: 'Farm' } } })?.root).toEqual(
      plan({ query: { term: { tag: 'Farm' } } })?.root,
    );
    expect(plan({ query: { terms: { tag: ['A', 'b', 'a'], boost: 2 } } })?.root).toEqual({
      kind: 'any',
      path: 'tag',
      terms: ['a', 'b'],
      boost: 2,
    });
  });

  it('matches nothing when the analyzer leaves no terms', () => {
    expect(plan({ query: { match: { body: '!!' } } })?.root).toEqual({ kind: 'none' });
  });

  it.each([
    ['a number field', { query: { match: { views: 3 } } }],
    ['a case-insensitive term', { query: { term: { tag: { value: 'A', case_insensitive: true } } } }],
    ['_id', { query: { match: { _id: '1' } } }],
    ['zero_terms_query all', { query: { match: { body: { query: '!!', zero_terms_query: 'all' } } } }],
    ['an unknown analyzer', { query: { match: { body: { query: 'a', analyzer: 'nope' } } } }],
    ['a multi_match naming a number field', { query: { multi_match: { query: 'a', fields: ['views'] } } }],
  ])('leaves %s to the SQL path', (_name, body) => {
    expect(plan(body)).toBeUndefined();
  });

  it.each([
    ['sort', { sort: ['tag'] }],
    ['aggregations', { aggs: { t: { terms: { field: 'tag' } } } }],
    ['search_after', { search_after: [1] }],
    ['runtime_mappings', { runtime_mappings: { r: { type: 'long' } } }],
    ['explain', { explain: true }],
    ['a phrase', { query: { match_phrase: { body: 'a b' } } }],
    ['a bool of only must_not', { query: { bool: { must_not: [{ match: { body: 'a' } }] } } }],
    ['phrase multi_match', { query: { multi_match: { query: 'a', fields: ['body'], type: 'phrase' } } }],
  ])('refuses a request with %s before resolving indices', (_name, extra) => {
    expect(isFastMatchRequest(parseSearchRequest({ query: { match: { body: 'a' } }, ...extra }, {}))).toBe(
      false,
    );
  });
});
