import { Client } from 'es8';
import { uniqueId } from '@acme/testkit';
import { resolveSearchIndices } from '../../../src/search/search-index-resolver';
import { type SearchResponse } from '../../../src/search/execute-search';
import { executeFastSearch } from '../../../src/search/fast-match/execute-fast-search';
import { openMappingReaders } from '../../../src/search/fast-match/open-mapping-readers';
import {
  isFastMatchRequest,
  planFastMatch,
  type MatchNode,
} from '../../../src/search/fast-match/plan-fast-match';
import { collectTopTerms, type TopCollector } from '../../../src/search/fast-match/block-max-top-k';
import { loadMatchPostings } from '../../../src/search/fast-match/load-match-postings';
import { TopDocsHeap } from '../../../src/search/fast-match/top-docs-heap';
import { PostingsCache } from '../../../src/search/fast-match/postings-cache';
import { parseSearchRequest } from '../../../src/query/parse/search-request';
import { startSearchStore, type RunningSearchStore } from '../../support/start-search-store';
import { seededRandom as random } from '../../support/seeded-random';
import { fastMatchOracle, comparable } from '../../support/fast-match-oracle';

/**
 * The fast path against the SQL plans it replaces: the same random match, multi_match and bool
 * requests through both, over real Postgres, must give the same hits, scores (float32 printed the
 * shortest way, so equal output means equal bits), totals and max_score.
 */
let store: RunningSearchStore;
let es: Client;
const { viaSql, viaFastPath, countViaSql, countViaFastPath } = fastMatchOracle(() => store.pool);
const suffix = uniqueId('fm')
  .toLowerCase()
  .replace(/[^a-z0-9]/g, '');
const first = `fm-a-${suffix}`;
const second = `fm-b-${suffix}`;

const rnd = random(20261122);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const VOCABULARY = Array.from({ length: 150 }, (_, i) => `w${i.toString(36)}${'xyz'[i % 3]}`);
/** Zipf-like: low ranks are common, so some terms have long posting lists and many ties. */
const word = (): string => VOCABULARY[Math.floor(VOCABULARY.length * rnd() ** 2.5)]!;
const words = (min: number, max: number): string =>
  Array.from({ length: min + Math.floor(rnd() * (max - min + 1)) }, word).join(' ');

function documentFor(i: number): Record<string, unknown> {
  const doc: Record<string, unknown> = { body: words(3, 60), tag: pick(['a', 'b', 'c']), n: i % 5 };
  if (i % 4 !== 0) doc.title = words(1, 6);
  return doc;
}

beforeAll(async () => {
  store = await startSearchStore();
  es = new Client({ node: store.url });
  const mappings = {
    properties: {
      title: { type: 'text' as const },
      body: { type: 'text' as const },
      tag: { type: 'keyword' as const },
    },
  };
  for (const [index, count] of [
    [first, 360],
    [second, 90],
  ] as const) {
    await es.indices.create({ index, mappings });
    const operations = Array.from({ length: count }, (_, i) => [
      { index: { _index: index, _id: String(i) } },
      documentFor(i),
    ]).flat();
    const bulk = await es.bulk({ refresh: true, operations });
    if (bulk.errors) throw new Error('fixture bulk failed');
  }
  // Replacements and deletions leave gaps and new doc keys, as real indices have.
  const churn = await es.bulk({
    refresh: true,
    operations: [
      ...Array.from({ length: 30 }, (_, i) => [
        { index: { _index: first, _id: String(i * 7) } },
        documentFor(i),
      ]).flat(),
      ...Array.from({ length: 10 }, (_, i) => ({ delete: { _index: first, _id: String(i * 11 + 1) } })),
    ],
  });
  if (churn.errors) throw new Error('churn bulk failed');
});
afterAll(async () => {
  await es.close();
  await store.stop();
});

const MSM = [undefined, undefined, '1', '2', '-1', '50%', '75%', '2<-25%'];

function matchQuery(field: string): Record<string, unknown> {
  const options: Record<string, unknown> = { query: words(1, 4) };
  if (rnd() < 0.3) options.operator = 'and';
  const msm = pick(MSM);
  if (msm !== undefined && options.operator === undefined) options.minimum_should_match = msm;
  if (rnd() < 0.2) options.boost = pick([0.5, 2, 3.7]);
  return { match: { [field]: options } };
}

function multiMatchQuery(): Record<string, unknown> {
  const options: Record<string, unknown> = {
    query: words(1, 4),
    fields: pick([
      ['title', 'body'],
      ['title^2', 'body'],
      ['body^1.5'],
      ['title', 'missing'],
      ['*'],
      ['tag', 'body'],
    ]),
    type: pick(['best_fields', 'most_fields']),
  };
  if (rnd() < 0.4) options.tie_breaker = pick([0.3, 0.7]);
  if (rnd() < 0.2) options.operator = 'and';
  const msm = pick(MSM);
  if (msm !== undefined && options.operator === undefined) options.minimum_should_match = msm;
  return { multi_match: options };
}

function keywordQuery(): Record<string, unknown> {
  const boost = rnd() < 0.3 ? { boost: 1.7 } : {};
  return pick([
    { term: { tag: { value: pick(['a', 'b', 'c', 'z']), ...boost } } },
    { terms: { tag: pick([['a'], ['a', 'c'], ['b', 'z']]), ...boost } },
    { match: { tag: pick(['a', 'b']) } },
  ]);
}

function leafQuery(): Record<string, unknown> {
  const kind = rnd();
  return kind < 0.65
    ? matchQuery(pick(['body', 'body', 'title']))
    : kind < 0.85
      ? multiMatchQuery()
      : keywordQuery();
}

function boolQuery(depth: number): Record<string, unknown> {
  const clause = (): Record<string, unknown> =>
    depth > 0 && rnd() < 0.2 ? boolQuery(depth - 1) : leafQuery();
  const list = (max: number): Record<string, unknown>[] =>
    Array.from({ length: Math.floor(rnd() * (max + 1)) }, clause);
  const bool: Record<string, unknown> = {
    must: list(2),
    should: list(3),
    filter: list(1),
    must_not: list(1),
  };
  if (
    (bool.must as unknown[]).length +
      (bool.should as unknown[]).length +
      (bool.filter as unknown[]).length ===
    0
  )
    bool.should = [clause()];
  if (rnd() < 0.3) bool.minimum_should_match = pick(['1', '2', '50%']);
  if (rnd() < 0.2) bool.boost = 1.5;
  return { bool };
}

function randomBody(): Record<string, unknown> {
  const kind = rnd();
  const body: Record<string, unknown> = {
    query:
      kind < 0.4
        ? matchQuery(pick(['body', 'title']))
        : kind < 0.55
          ? multiMatchQuery()
          : kind < 0.65
            ? keywordQuery()
            : boolQuery(2),
    from: pick([0, 0, 0, 3, 10, 25]),
    size: pick([10, 10, 0, 1, 5, 40]),
  };
  const tth = pick([undefined, undefined, true, false, 5, 50]);
  if (tth !== undefined) body.track_total_hits = tth;
  if (rnd() < 0.1) body.min_score = pick([0.5, 1.5, 3]);
  if (rnd() < 0.1) body.post_filter = matchQuery('body');
  // What the hits carry is built by the code both paths share; vary it anyway.
  if (rnd() < 0.1) body._source = pick([false, ['title'], { excludes: ['body'] }]);
  if (rnd() < 0.1) body.fields = ['title', 'tag'];
  if (rnd() < 0.1) body.version = true;
  if (rnd() < 0.1) body.seq_no_primary_term = true;
  if (rnd() < 0.05) body.highlight = { fields: { body: {} } };
  return body;
}

describe('the fast match path agrees with the SQL plans', () => {
  it('gives the same hits, scores, totals, max_score and _count for 240 random requests', async () => {
    let fast = 0;
    let withHits = 0;
    for (let i = 0; i < 240; i++) {
      const body = randomBody();
      const index = rnd() < 0.8 ? first : `${first},${second}`;
      const expected = await viaSql(index, body);
      const actual = await viaFastPath(index, body);
      if (!actual) continue;
      fast++;
      if (expected.hits.hits.length > 0) withHits++;
      try {
        expect(comparable(actual)).toEqual(comparable(expected));
        if (i % 4 === 0)
          expect(await countViaFastPath(index, body.query)).toBe(await countViaSql(index, body.query));
      } catch (error) {
        throw new Error(`request ${i} on ${index}: ${JSON.stringify(body)}\n${String(error)}`);
      }
    }
    // Every generated shape is one the fast path covers.
    expect(fast).toBe(240);
    expect(withHits).toBeGreaterThan(100);
  });

  it('gives the same hits and scores for 120 random fuzzy and match-with-fuzziness requests', async () => {
    const typo = (w: string): string => {
      const i = Math.floor(rnd() * w.length);
      const edit = rnd();
      if (edit < 0.3 && i + 1 < w.length) return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
      if (edit < 0.6) return w.slice(0, i) + w.slice(i + 1);
      return w.slice(0, i) + pick(['w', 'x', '1', 'q']) + w.slice(i + 1);
    };
    const fuzzyOptions = (): Record<string, unknown> => {
      const options: Record<string, unknown> = {};
      if (rnd() < 0.7) options.fuzziness = pick(['AUTO', 0, 1, 2, 'AUTO:2,4']);
      if (rnd() < 0.3) options.prefix_length = pick([1, 2]);
      if (rnd() < 0.3) options.max_expansions = pick([1, 3, 10]);
      return options;
    };
    const fuzzyLeaf = (): Record<string, unknown> => {
      const kind = rnd();
      if (kind < 0.35) {
        const options = fuzzyOptions();
        if (rnd() < 0.3) options.transpositions = false;
        if (rnd() < 0.2) options.boost = 2;
        return { fuzzy: { [pick(['body', 'title', 'tag'])]: { value: typo(word()), ...options } } };
      }
      const fuzziness = { fuzziness: pick(['AUTO', 1, 2]), ...fuzzyOptions() };
      if (kind < 0.7) {
        const options: Record<string, unknown> = {
          query: [1, 2].map(() => typo(word())).join(' '),
          ...fuzziness,
        };
        if (rnd() < 0.3) options.operator = 'and';
        if (rnd() < 0.3) options.fuzzy_transpositions = false;
        return { match: { [pick(['body', 'title'])]: options } };
      }
      if (kind < 0.85)
        return { multi_match: { query: typo(word()), fields: ['title^2', 'body'], ...fuzziness } };
      return {
        bool: { should: [fuzzyLeaf(), matchQuery('body')], filter: rnd() < 0.3 ? [keywordQuery()] : [] },
      };
    };
    let withHits = 0;
    for (let i = 0; i < 120; i++) {
      const body = { query: fuzzyLeaf(), size: pick([10, 40]) };
      const index = rnd() < 0.8 ? first : `${first},${second}`;
      const expected = await viaSql(index, body);
      const actual = await viaFastPath(index, body);
      try {
        expect(actual).toBeDefined();
        expect(comparable(actual!)).toEqual(comparable(expected));
        if (i % 4 === 0)
          expect(await countViaFastPath(index, body.query)).toBe(await countViaSql(index, body.query));
      } catch (error) {
        throw new Error(`request ${i} on ${index}: ${JSON.stringify(body)}\n${String(error)}`);
      }
      if (expected.hits.hits.length > 0) withHits++;
    }
    expect(withHits).toBeGreaterThan(60);
  });

  it('agrees on 120 random query_string and simple_query_string requests', async () => {
    const qsClause = (depth: number): string => {
      const r = rnd();
      if (depth > 0 && r < 0.15) return `(${qsText(depth - 1)})${rnd() < 0.3 ? '^2' : ''}`;
      if (r < 0.35)
        return `${pick(['title', 'body', 'tag'])}:${pick(['a', 'b']) === 'a' ? word() : pick(['a', 'b', 'c'])}`;
      return `${word()}${rnd() < 0.1 ? '~1' : ''}${rnd() < 0.15 ? `^${pick(['0.5', '3'])}` : ''}`;
    };
    const qsText = (depth: number): string =>
      Array.from({ length: 1 + Math.floor(rnd() * 4) }, (_, i) => {
        const op = i === 0 ? '' : pick(['', '', ' AND ', ' OR ', ' && ', ' || ']);
        const mod = pick(['', '', '', '+', '-', 'NOT ']);
        return `${op}${op === '' && i > 0 ? ' ' : ''}${mod}${qsClause(depth)}`;
      }).join('');
    const sqsText = (): string =>
      Array.from(
        { length: 1 + Math.floor(rnd() * 4) },
        (_, i) => `${i === 0 ? '' : pick([' ', ' | ', ' +'])}${pick(['', '', '-'])}${word()}`,
      ).join('');
    let fast = 0;
    for (let i = 0; i < 120; i++) {
      const options: Record<string, unknown> = {};
      if (rnd() < 0.4) options.fields = pick([['title', 'body'], ['title^2', 'body'], ['body'], ['*']]);
      if (rnd() < 0.3) options.default_operator = 'and';
      if (rnd() < 0.2) options.minimum_should_match = pick(['1', '2', '50%']);
      const simple = rnd() < 0.35;
      if (!simple && rnd() < 0.3) options.tie_breaker = 0.3;
      if (!simple && rnd() < 0.2) options.type = 'most_fields';
      const query = simple
        ? { simple_query_string: { query: sqsText(), ...options } }
        : { query_string: { query: qsText(2), ...options } };
      const body = { query, size: pick([10, 40]) };
      const index = rnd() < 0.8 ? first : `${first},${second}`;
      const expected = await viaSql(index, body);
      const actual = await viaFastPath(index, body);
      if (!actual) continue;
      fast++;
      try {
        expect(comparable(actual)).toEqual(comparable(expected));
      } catch (error) {
        throw new Error(`request ${i} on ${index}: ${JSON.stringify(body)}\n${String(error)}`);
      }
    }
    // Negations alone (a bool of must_not), fuzzy terms over several fields and the like take the SQL
    // path; about two thirds do not.
    expect(fast).toBeGreaterThan(50);
  });

  it('answers operator and over many blocks exactly as the SQL plans do (the rarest term drives)', async () => {
    const index = `fm-c-${suffix}`;
    const rare = new Set([3, 200, 201, 202, 520, 777]);
    const operations = Array.from({ length: 800 }, (_, i) => [
      { index: { _index: index, _id: String(i) } },
      { body: `common ${i % 3 === 0 ? 'mid ' : ''}${rare.has(i) ? 'rare ' : ''}filler${i % 7}` },
    ]).flat();
    const bulk = await es.bulk({ refresh: true, operations });
    expect(bulk.errors).toBe(false);
    for (const query of ['common rare', 'rare mid common', 'mid common', 'filler3 mid', 'rare absent']) {
      const body = { query: { match: { body: { query, operator: 'and' } } }, size: 20 };
      const fast = await viaFastPath(index, body);
      expect(fast).toBeDefined();
      expect(comparable(fast!)).toEqual(comparable(await viaSql(index, body)));
    }
    const both = await viaFastPath(index, {
      query: { match: { body: { query: 'common rare', operator: 'and' } } },
    });
    expect(both!.hits.hits.map((h) => h._id)).toHaveLength(6);
  });

  it('keeps hits, scores and totals when block-max pruning skips documents (many blocks, k = 10)', async () => {
    // Two indices of 2,400 and 600 documents: every term in many 128-document blocks, frequencies and
    // lengths varied so that block bounds differ, ties between the indices.
    const big = `fm-p-${suffix}`;
    const small = `fm-q-${suffix}`;
    const prng = random(2311);
    const text = (i: number): string => {
      const parts = ['common'];
      if (prng() < 0.4) parts.push('usual');
      if (prng() < 0.02) parts.push('rare', 'rare');
      if (prng() < 0.01) parts.push('common', 'common', 'common');
      if (i % 97 === 0) parts.push('usual', 'usual');
      const filler = Array.from({ length: Math.floor(prng() * 30) }, (_, j) => `f${(i + j) % 50}`);
      return [...parts, ...filler].join(' ');
    };
    for (const [index, count] of [
      [big, 2400],
      [small, 600],
    ] as const) {
      const bulk = await es.bulk({
        refresh: true,
        operations: Array.from({ length: count }, (_, i) => [
          { index: { _index: index, _id: String(i) } },
          { body: text(i) },
        ]).flat(),
      });
      expect(bulk.errors).toBe(false);
    }
    const queries = [
      { match: { body: 'common rare' } },
      { match: { body: 'common' } },
      { match: { body: 'usual common f3' } },
      { match: { body: { query: 'common usual', operator: 'and' } } },
      { match: { body: { query: 'rare common', operator: 'and' } } },
      { term: { body: 'usual' } },
    ];
    for (const query of queries)
      for (const index of [big, `${big},${small}`])
        for (const extra of [
          {},
          { track_total_hits: false },
          { track_total_hits: 100 },
          { size: 3, from: 2 },
          { min_score: 1.2 },
        ]) {
          const body = { query, size: 10, ...extra };
          const fast = await viaFastPath(index, body);
          expect(fast).toBeDefined();
          try {
            expect(comparable(fast!)).toEqual(comparable(await viaSql(index, body)));
          } catch (error) {
            throw new Error(`${index}: ${JSON.stringify(body)}\n${String(error)}`);
          }
        }
    // The pruning was at work: past track_total_hits, far fewer documents scored than matched.
    const readers = openMappingReaders(await resolveSearchIndices(store.pool, big));
    const plan = planFastMatch(readers[0]!, parseSearchRequest({ query: queries[0] }, {}))!;
    const postings = await loadMatchPostings(store.pool, plan);
    const collector: TopCollector = {
      heap: new TopDocsHeap(10),
      shard: 0,
      total: 0,
      limit: 0,
      minScore: undefined,
      maxScore: -Infinity,
      scored: 0,
    };
    expect(plan.root.kind).toBe('terms');
    expect(collectTopTerms(plan.root as Extract<MatchNode, { kind: 'terms' }>, postings, collector)).toBe(
      true,
    );
    expect(collector.scored).toBeLessThan(2400 / 2);
    // Under track_total_hits' default, a one-term match (counted from its list: executeFastSearch)
    // skips from its first document; counted as it is scored, it scores them all (2,400 < 10,000).
    const one = planFastMatch(readers[0]!, parseSearchRequest({ query: queries[1] }, {}))!;
    const onePostings = await loadMatchPostings(store.pool, one);
    const collect = (counted: boolean): TopCollector => {
      const c: TopCollector = { ...collector, heap: new TopDocsHeap(10), total: 0, limit: 10_000, scored: 0 };
      c.counted = counted;
      c.maxScore = -Infinity;
      collectTopTerms(one.root as Extract<MatchNode, { kind: 'terms' }>, onePostings, c);
      return c;
    };
    expect(collect(false).scored).toBe(2400);
    expect(collect(true).scored).toBeLessThan(2400 * 0.75);
    expect(collect(true).heap.sorted()).toEqual(collect(false).heap.sorted());
  });

  it('prunes by each block’s best posting, not its max_freq and min_norm, with the same answers', async () => {
    // Every 128-document block holds a long document with `word` 12 times and a one-word document:
    // the block's max_freq (12) and min_norm (the short one) together bound it above the best
    // documents (`word` 4 times in 6 words, the first 12), although no document of it comes near.
    const index = `fm-k-${suffix}`;
    const text = (i: number): string => {
      if (i < 12) return 'word word word word f1 f2';
      if (i % 128 === 5)
        return [...Array<string>(12).fill('word'), ...Array<string>(150).fill('long')].join(' ');
      if (i % 128 === 6) return 'word';
      const filler = Array.from({ length: 15 + (i % 10) }, (_, j) => `f${(i + j) % 40}`);
      return ['word', ...(i % 3 === 0 ? ['other'] : []), ...filler].join(' ');
    };
    const bulk = await es.bulk({
      refresh: true,
      operations: Array.from({ length: 1280 }, (_, i) => [
        { index: { _index: index, _id: String(i) } },
        { body: text(i) },
      ]).flat(),
    });
    expect(bulk.errors).toBe(false);
    const queries = [
      { match: { body: 'word' } },
      { match: { body: 'word other' } },
      { match: { body: 'other long word' } },
    ];
    for (const query of queries)
      for (const extra of [
        {},
        { track_total_hits: false },
        { track_total_hits: 100 },
        { size: 3, from: 9 },
      ]) {
        const body = { query, size: 10, ...extra };
        const fast = await viaFastPath(index, body);
        expect(fast).toBeDefined();
        try {
          expect(comparable(fast!)).toEqual(comparable(await viaSql(index, body)));
        } catch (error) {
          throw new Error(`${JSON.stringify(body)}\n${String(error)}`);
        }
      }
    // Counted from its list, the one-term match skips every block but the best documents' own.
    const readers = openMappingReaders(await resolveSearchIndices(store.pool, index));
    const plan = planFastMatch(readers[0]!, parseSearchRequest({ query: queries[0] }, {}))!;
    const postings = await loadMatchPostings(store.pool, plan);
    const c: TopCollector = {
      heap: new TopDocsHeap(10),
      shard: 0,
      total: 1280,
      limit: 10_000,
      minScore: undefined,
      maxScore: -Infinity,
      scored: 0,
      counted: true,
    };
    expect(collectTopTerms(plan.root as Extract<MatchNode, { kind: 'terms' }>, postings, c)).toBe(true);
    expect(c.heap.sorted().map((h) => h.doc)).toHaveLength(10);
    expect(c.scored).toBeLessThan(1280 / 4);
  });

  it('leaves requests it does not cover to the SQL path', async () => {
    const outside = [
      { query: { term: { tag: { value: 'A', case_insensitive: true } } } },
      { query: { match: { body: 'w0x' } }, sort: [{ tag: 'asc' }] },
      { query: { match: { body: 'w0x' } }, aggs: { t: { terms: { field: 'tag' } } } },
      { query: { match: { body: 'w0x' } }, search_after: [1] },
      { query: { match: { body: 'w0x' } }, explain: true },
      { query: { match_phrase: { body: 'w0x w1y' } } },
      { query: { bool: { must_not: [{ match: { body: 'w0x' } }] } } },
      { query: { multi_match: { query: 'w0x', fields: ['n'] } } },
      { query: { match: { body: { query: 'the', zero_terms_query: 'all', analyzer: 'stop' } } } },
      // regexp, and fuzzy queries with a rewrite other than the default, stay on the SQL path.
      { query: { match: { body: { query: 'w0x', fuzziness: 'AUTO', fuzzy_rewrite: 'constant_score' } } } },
      { query: { fuzzy: { body: { value: 'w0x', rewrite: 'top_terms_5' } } } },
      { query: { regexp: { body: 'w0.*' } } },
    ];
    for (const body of outside) expect(await viaFastPath(first, body)).toBeUndefined();
    expect(isFastMatchRequest(parseSearchRequest({ query: { match: { body: 'x' } } }, {}))).toBe(true);
  });

  it('answers over HTTP as the SQL path does, highlight and _source filtering included', async () => {
    const body = {
      query: { match: { body: 'w0x w1y' } },
      highlight: { fields: { body: {} } },
      _source: ['title'],
      version: true,
      seq_no_primary_term: true,
    };
    const res = await fetch(`${store.url}/${first}/_search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const http = (await res.json()) as SearchResponse;
    expect({ ...http, took: 0 }).toEqual(comparable(await viaSql(first, body)));
    expect(http.hits.hits.length).toBe(10);
    expect(http.hits.hits[0]).toHaveProperty('highlight.body');
  });
});

describe('the fast path and catalog changes', () => {
  const search = async (index: string, query: string): Promise<{ status: number; ids: string[] }> => {
    const res = await fetch(`${store.url}/${index}/_search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: { match: { body: query } } }),
    });
    const body = (await res.json()) as { hits?: { hits: { _index: string; _id: string }[] } };
    return { status: res.status, ids: (body.hits?.hits ?? []).map((h) => `${h._index}/${h._id}`) };
  };

  it('answers from the current catalog after an alias moves and an index is recreated', async () => {
    const alias = `fm-alias-${suffix}`;
    const one = `fm-one-${suffix}`;
    const two = `fm-two-${suffix}`;
    for (const [index, body] of [
      [one, 'apple banana'],
      [two, 'apple cherry'],
    ]) {
      await es.index({ index: index!, id: '1', document: { body }, refresh: true });
    }
    await es.indices.updateAliases({ actions: [{ add: { index: one, alias } }] });
    expect(await search(alias, 'apple')).toEqual({ status: 200, ids: [`${one}/1`] });
    expect(await search(alias, 'apple')).toEqual({ status: 200, ids: [`${one}/1`] });
    await es.indices.updateAliases({
      actions: [{ remove: { index: one, alias } }, { add: { index: two, alias } }],
    });
    expect(await search(alias, 'apple')).toEqual({ status: 200, ids: [`${two}/1`] });
    expect(await search(one, 'banana')).toEqual({ status: 200, ids: [`${one}/1`] });
    await es.indices.delete({ index: one });
    expect((await search(one, 'banana')).status).toBe(404);
    await es.indices.create({ index: one, mappings: { properties: { body: { type: 'keyword' } } } });
    await es.index({ index: one, id: '2', document: { body: 'banana' }, refresh: true });
    // Now a keyword field: the SQL path answers, and the exact value matches.
    expect(await search(one, 'banana')).toEqual({ status: 200, ids: [`${one}/2`] });
  });
});

describe('the fast path with its postings cache', () => {
  /** The store's pool, counting statements: a search answered from the cache makes one per index. */
  let statements = 0;
  const counting = {
    query: (...args: unknown[]) => {
      statements++;
      return (store.pool.query as (...a: unknown[]) => unknown).apply(store.pool, args);
    },
  } as unknown as typeof store.pool;

  async function viaCache(
    cache: PostingsCache,
    index: string,
    body: Record<string, unknown>,
  ): Promise<SearchResponse | undefined> {
    const readers = openMappingReaders(await resolveSearchIndices(store.pool, index));
    statements = 0;
    return executeFastSearch(counting, readers, parseSearchRequest(body, {}), 0, cache);
  }

  it('answers the second time in one statement, the same hits and scores as the SQL plans', async () => {
    const cache = new PostingsCache(8 * 2 ** 20);
    let fromCache = 0;
    for (let i = 0; i < 120; i++) {
      const body = randomBody();
      const expected = comparable(await viaSql(first, body));
      expect(comparable((await viaCache(cache, first, body))!)).toEqual(expected);
      const again = await viaCache(cache, first, body);
      if (statements === 1) fromCache++;
      try {
        expect(comparable(again!)).toEqual(expected);
      } catch (error) {
        throw new Error(`request ${i}: ${JSON.stringify(body)}\n${String(error)}`);
      }
    }
    // Every request's terms fit: each second answer came from the cache.
    expect(fromCache).toBe(120);
  });

  it('reads only the terms it does not hold, and again a held one whose postings changed', async () => {
    const index = `fm-part-${suffix}`;
    await es.indices.create({ index, mappings: { properties: { body: { type: 'text' } } } });
    await es.bulk({
      refresh: true,
      operations: Array.from({ length: 300 }, (_, i) => [
        { index: { _index: index, _id: String(i) } },
        { body: `alpha ${i % 3 === 0 ? 'beta ' : ''}${i % 50 === 0 ? 'gamma ' : ''}pad${i % 11}` },
      ]).flat(),
    });
    const blocksSent = new Map<string, number>();
    const watching = {
      query: async (...args: unknown[]) => {
        statements++;
        const result = (await (store.pool.query as (...a: unknown[]) => Promise<unknown>).apply(
          store.pool,
          args,
        )) as { rows: unknown[] };
        // The postings statement's block rows (kind 2) name their term; other statements are not counted.
        const name = (args[0] as { name?: string }).name ?? '';
        if (['fast-match-postings', 'fast-match-conjunction'].includes(name))
          for (const row of result.rows as string[][])
            if (row[0] === '2') blocksSent.set(row[3]!, (blocksSent.get(row[3]!) ?? 0) + 1);
        return result;
      },
    } as unknown as typeof store.pool;
    const cache = new PostingsCache(8 * 2 ** 20);
    const search = async (body: Record<string, unknown>) => {
      const readers = openMappingReaders(await resolveSearchIndices(store.pool, index));
      blocksSent.clear();
      statements = 0;
      const fast = await executeFastSearch(watching, readers, parseSearchRequest(body, {}), 0, cache);
      expect(comparable(fast!)).toEqual(comparable(await viaSql(index, body)));
    };
    const termIds = async (...terms: string[]): Promise<string[]> => {
      const { rows } = await store.pool.query<{ term_id: string }>(
        `SELECT t.term_id FROM terms t JOIN fields f USING (index_id, field_id) JOIN indices i USING (index_id)
         WHERE i.name = $1 AND f.path = 'body' AND t.term = ANY($2::text[]) ORDER BY t.term`,
        [index, terms],
      );
      return rows.map((r) => r.term_id);
    };
    const [alpha, beta, gamma] = await termIds('alpha', 'beta', 'gamma');
    await search({ query: { match: { body: 'alpha beta' } } });
    expect(new Set(blocksSent.keys())).toEqual(new Set([alpha, beta]));
    // alpha and beta held: only gamma's blocks come back, and the page comes in a second statement.
    await search({ query: { match: { body: 'gamma alpha beta' } }, size: 20 });
    expect([...blocksSent.keys()]).toEqual([gamma]);
    expect(statements).toBe(2);
    await search({ query: { match: { body: { query: 'beta gamma', operator: 'and' } } } });
    expect(statements).toBe(1);
    // A write with alpha: its version moves, so alpha is read again beside the new delta, beta is
    // not, and all are scored with the new statistics (compared with the SQL path above).
    await es.index({ index, id: 'new', document: { body: 'alpha alpha delta' }, refresh: true });
    await search({ query: { match: { body: 'alpha beta delta' } }, size: 50 });
    expect(statements).toBe(2);
    expect(new Set(blocksSent.keys())).toEqual(new Set([alpha, ...(await termIds('delta'))]));
    await search({ query: { match: { body: 'alpha beta delta' } }, size: 50 });
    expect(statements).toBe(1);
  });

  it('sees every write committed since it read the postings, and scores with the new statistics', async () => {
    const index = `fm-cache-${suffix}`;
    await es.indices.create({ index, mappings: { properties: { body: { type: 'text' } } } });
    await es.bulk({
      refresh: true,
      operations: Array.from({ length: 40 }, (_, i) => [
        { index: { _index: index, _id: String(i) } },
        { body: `apple ${i % 2 ? 'banana' : 'cherry'} filler${i % 5}` },
      ]).flat(),
    });
    const cache = new PostingsCache(8 * 2 ** 20);
    const bodies = [
      { query: { match: { body: { query: 'apple banana', operator: 'and' } } }, size: 50 },
      { query: { match: { body: 'cherry filler3' } }, size: 50 },
      { query: { match: { body: 'durian' } } },
    ];
    const writes: (() => Promise<unknown>)[] = [
      // a new document with the query terms
      () => es.index({ index, id: 'new', document: { body: 'apple banana durian' }, refresh: true }),
      // a document without them: only the field statistics change
      () => es.index({ index, id: 'other', document: { body: 'elderberry' }, refresh: true }),
      // a replacement and a deletion
      () => es.index({ index, id: '3', document: { body: 'cherry cherry' }, refresh: true }),
      () => es.delete({ index, id: '5', refresh: true }),
      () => es.delete({ index, id: 'new', refresh: true }),
    ];
    for (const write of [async () => undefined, ...writes]) {
      await write();
      for (const body of bodies) {
        const expected = comparable(await viaSql(index, body));
        // the first read after the write finds the change; the second is served from the cache
        expect(comparable((await viaCache(cache, index, body))!)).toEqual(expected);
        expect(comparable((await viaCache(cache, index, body))!)).toEqual(expected);
        expect(statements).toBe(1);
      }
    }
  });
});
