import { Client } from 'es8';
import { uniqueId } from '@acme/testkit';
import { resolveSearchIndices } from '../../../src/search/search-index-resolver';
import { executeFastCount } from '../../../src/search/fast-match/execute-fast-search';
import { openMappingReaders } from '../../../src/search/fast-match/open-mapping-readers';
import { planFastMatch } from '../../../src/search/fast-match/plan-fast-match';
import { loadMatchPostings } from '../../../src/search/fast-match/load-match-postings';
import { PostingsCache } from '../../../src/search/fast-match/postings-cache';
import { parseSearchRequest } from '../../../src/query/parse/search-request';
import { startSearchStore, type RunningSearchStore } from '../../support/start-search-store';
import { seededRandom as random } from '../../support/seeded-random';
import { fastMatchOracle, comparable, bulkIndex } from '../../support/fast-match-oracle';

/**
 * Match with operator and over long lists (issue 23): a term much longer than the rarest is read
 * only at the rarest term's documents (read-conjunction.ts, postings-at.ts) unless the postings
 * cache can keep it whole. Hits, scores, totals and max_score must stay those of the SQL plans,
 * with the rarest term past 512 and past 5,000 documents, after deletes and replacements, with
 * and without a cache, and whatever track_total_hits asks.
 */
let store: RunningSearchStore;
let es: Client;
const { viaSql, viaFastPath, countViaSql } = fastMatchOracle(() => store.pool);
const suffix = uniqueId('fmc')
  .toLowerCase()
  .replace(/[^a-z0-9]/g, '');
const index = `fmc-${suffix}`;
const other = `fmc-b-${suffix}`;
const DOCS = 24_000;

/**
 * `long` in every document, `wide` in every other one, `mid` in a quarter (6,000: past 5,000),
 * `rare` in one of 40 (600: past 512), `tiny` in 30; frequencies and lengths varied so that
 * scores differ and tie.
 */
function text(i: number, prng: () => number): string {
  const parts = ['long'];
  if (i % 2 === 0) parts.push('wide');
  if (i % 4 === 1) parts.push('mid');
  if (i % 40 === 7) parts.push('rare');
  if (i % 800 === 9) parts.push('tiny');
  if (prng() < 0.1) parts.push(parts[Math.floor(prng() * parts.length)]!);
  for (let j = Math.floor(prng() * 12); j > 0; j--) parts.push(`f${Math.floor(prng() * 40)}`);
  return parts.join(' ');
}

beforeAll(async () => {
  store = await startSearchStore();
  es = new Client({ node: store.url });
  const prng = random(2326);
  for (const [name, count] of [
    [index, DOCS],
    [other, 2000],
  ] as const) {
    await es.indices.create({ index: name, mappings: { properties: { body: { type: 'text' } } } });
    await bulkIndex(es, name, count, (i) => ({ body: text(i, prng) }));
  }
  // Deletions and replacements: blocks rewritten, gaps and new doc keys in every list.
  const churn = await es.bulk({
    refresh: true,
    operations: [
      ...Array.from({ length: 300 }, (_, i) => ({ delete: { _index: index, _id: String(i * 61 + 7) } })),
      ...Array.from({ length: 200 }, (_, i) => [
        { index: { _index: index, _id: String(i * 97 + 1) } },
        { body: text(i * 40 + 7, prng) },
      ]).flat(),
    ],
  });
  if (churn.errors) throw new Error('churn bulk failed');
}, 120_000);
afterAll(async () => {
  await es.close();
  await store.stop();
});

const and = (query: string) => ({ match: { body: { query, operator: 'and' } } });

const QUERIES = [
  'long rare', // 600 against 24,000
  'wide mid', // 6,000 against 12,000: 2×, both parsed whole
  'long mid', // 6,000 against 24,000
  'rare mid long', // every list read at rare's documents
  'mid mid long', // a term twice
  'tiny rare wide', // 30 documents drive
  'long wide', // similar lengths: whole, block-max
  'rare absent', // a term the index does not have
];

const EXTRAS: Record<string, unknown>[] = [
  {},
  { track_total_hits: true },
  { track_total_hits: false },
  { track_total_hits: 100 },
  { size: 5, from: 7 },
  { min_score: 1.5 },
];

describe('match with operator and over long lists', () => {
  it('parses a much longer list only at the rarest term’s documents when the cache cannot keep it', async () => {
    const readers = openMappingReaders(await resolveSearchIndices(store.pool, index));
    const plan = planFastMatch(readers[0]!, parseSearchRequest({ query: and('long mid') }, {}))!;
    const key = (term: string) => `body\u0000${term}`;
    // Whole reads (a cache on) with no room left in it: mid (rarest) whole, long at mid's documents.
    const sparse = await loadMatchPostings(store.pool, plan, true, new Map(), 0);
    const mid = sparse.terms.get(key('mid'))!;
    const long = sparse.terms.get(key('long'))!;
    expect(mid.docs.length).toBe(mid.docFreq);
    expect(mid.docFreq).toBeGreaterThan(5000);
    expect(long.docFreq).toBeGreaterThan(4 * mid.docFreq);
    expect(long.docs.length).toBe(await countViaSql(index, and('long mid')));
    expect(long.blocks).toBeUndefined();
    const rare = planFastMatch(readers[0]!, parseSearchRequest({ query: and('long rare') }, {}))!;
    const rareList = (await loadMatchPostings(store.pool, rare, true, new Map(), 0)).terms.get(key('rare'))!;
    expect(rareList.docFreq).toBeGreaterThan(512);
    // With room in the cache, long is parsed whole, for the cache to keep.
    const whole = await loadMatchPostings(store.pool, plan, true, new Map(), 64 * 2 ** 20);
    expect(whole.terms.get(key('long'))!.docs.length).toBe(long.docFreq);
  });

  it('gives the SQL plans’ hits, scores, totals and counts without a cache', async () => {
    for (const query of QUERIES)
      for (const indices of [index, `${index},${other}`])
        for (const extra of EXTRAS) {
          const body = { query: and(query), size: 10, ...extra };
          const fast = await viaFastPath(indices, body);
          expect(fast).toBeDefined();
          try {
            expect(comparable(fast!)).toEqual(comparable(await viaSql(indices, body)));
          } catch (error) {
            throw new Error(`${indices}: ${JSON.stringify(body)}\n${String(error)}`);
          }
        }
    for (const query of QUERIES) {
      const readers = openMappingReaders(await resolveSearchIndices(store.pool, index));
      const fast = await executeFastCount(
        store.pool,
        readers,
        parseSearchRequest({ query: and(query) }, {}, true),
      );
      expect(fast).toBe(await countViaSql(index, and(query)));
    }
  });

  it('gives them through a cache too small for the long lists, holding some terms and not others', async () => {
    // 1 MB: the rare lists fit, `long` (24,000 postings) and `wide` do not fit beside them.
    const cache = new PostingsCache(2 ** 20);
    for (const round of [0, 1])
      for (const query of QUERIES)
        for (const extra of EXTRAS) {
          const body = { query: and(query), size: 10, ...extra };
          const expected = comparable(await viaSql(index, body));
          try {
            expect(comparable((await viaFastPath(index, body, cache))!)).toEqual(expected);
          } catch (error) {
            throw new Error(`round ${round}: ${JSON.stringify(body)}\n${String(error)}`);
          }
        }
    expect(cache.size.bytes).toBeLessThanOrEqual(2 ** 20);
    expect(cache.size.terms).toBeGreaterThan(0);
  });
});
