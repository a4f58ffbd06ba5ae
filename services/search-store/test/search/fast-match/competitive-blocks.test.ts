import { Client } from 'es8';
import { uniqueId } from '@acme/testkit';
import { resolveSearchIndices } from '../../../src/search/search-index-resolver';
import { executeSearch, type SearchResponse } from '../../../src/search/execute-search';
import { executeFastSearch } from '../../../src/search/fast-match/execute-fast-search';
import { openMappingReaders } from '../../../src/search/fast-match/open-mapping-readers';
import { collectTopTree } from '../../../src/search/fast-match/block-max-tree';
import type { TopCollector } from '../../../src/search/fast-match/block-max-top-k';
import { loadMatchPostings } from '../../../src/search/fast-match/load-match-postings';
import { planFastMatch } from '../../../src/search/fast-match/plan-fast-match';
import { scoreMatchPlan } from '../../../src/search/fast-match/score-match-plan';
import { TopDocsHeap } from '../../../src/search/fast-match/top-docs-heap';
import { PostingsCache } from '../../../src/search/fast-match/postings-cache';
import { blockReadStats } from '../../../src/search/fast-match/read-term-blocks';
import { openIndexReaders } from '../../../src/query/index-reader';
import { parseSearchRequest } from '../../../src/query/parse/search-request';
import { startSearchStore, type RunningSearchStore } from '../../support/start-search-store';
import { seededRandom as random } from '../../support/seeded-random';

/**
 * The fast path reads a term's block directory first and then only the blocks that can hold a
 * document of the page (choose-blocks.ts): over an index where the frequent terms span many blocks,
 * the answers equal the SQL path's (hits, scores, totals, max_score) while far fewer blocks are read
 * than the terms hold, counted by read-term-blocks.ts.
 */
let store: RunningSearchStore;
let es: Client;
const suffix = uniqueId('cb')
  .toLowerCase()
  .replace(/[^a-z0-9]/g, '');
const big = `cb-a-${suffix}`;
const small = `cb-b-${suffix}`;
/** Documents of the big index: "common" is in every one, so past track_total_hits' 10,000. */
const DOCS = 10_500;

function text(prng: () => number, i: number): string {
  const parts = ['common'];
  if (prng() < 0.4) parts.push('usual');
  if (prng() < 0.3) parts.push('often');
  if (prng() < 0.02) parts.push('rare', ...(prng() < 0.3 ? ['rare'] : []));
  if (prng() < 0.003) parts.push('odd');
  if (prng() < 0.01) parts.push('common', 'common', 'common');
  if (i % 97 === 0) parts.push('usual', 'usual');
  // In every other document, four times in the first few hundred: blocks whose bounds differ.
  if (i % 2 === 0) parts.push(...(i < 300 ? ['burst', 'burst', 'burst', 'burst'] : ['burst']));
  if (i % 3 === 0) parts.push(...(i < 300 ? ['cluster', 'cluster', 'cluster'] : ['cluster']));
  const filler = Array.from({ length: Math.floor(prng() * 30) }, (_, j) => `f${(i + j) % 50}`);
  return [...parts, ...filler].join(' ');
}

beforeAll(async () => {
  store = await startSearchStore();
  es = new Client({ node: store.url });
  const prng = random(4242);
  for (const [index, count] of [
    [big, DOCS],
    [small, 700],
  ] as const) {
    await es.indices.create({ index, mappings: { properties: { body: { type: 'text' } } } });
    // One bulk, force-merged to one segment: each term is full blocks of 128 and one smaller block
    // (migration 0026). Over several bulks a term's small blocks would depend on the batch sizes and on
    // when the background merge ran (each small block has bounds of its own, so pruning reads more of
    // them); the counts below measure pruning, the merge policy has its own tests (test/index/segment-merge*).
    const bulk = await es.bulk({
      refresh: true,
      operations: Array.from({ length: count }, (_, j) => [
        { index: { _index: index, _id: String(j) } },
        { body: text(prng, j) },
      ]).flat(),
    });
    if (bulk.errors) throw new Error('fixture bulk failed');
    await es.indices.forcemerge({ index, max_num_segments: 1 });
  }
}, 120_000);
afterAll(async () => {
  await es.close();
  await store.stop();
});

async function viaSql(index: string, body: Record<string, unknown>): Promise<SearchResponse> {
  const request = parseSearchRequest(body, {});
  const client = await store.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const readers = await openIndexReaders(client, await resolveSearchIndices(client, index));
    const response = await executeSearch(client, readers, request, {}, 0);
    await client.query('COMMIT');
    return response;
  } finally {
    client.release();
  }
}

let statements = 0;
const counting = {
  query: (...args: unknown[]) => {
    statements++;
    return (store.pool.query as (...a: unknown[]) => unknown).apply(store.pool, args);
  },
} as unknown as typeof store.pool;

/** The fast path's answer and the blocks and statements it read. */
async function viaFastPath(
  index: string,
  body: Record<string, unknown>,
  cache?: PostingsCache,
): Promise<{ response: SearchResponse; blocks: number; statements: number }> {
  const readers = openMappingReaders(await resolveSearchIndices(store.pool, index));
  const before = blockReadStats.blocks;
  statements = 0;
  const response = await executeFastSearch(counting, readers, parseSearchRequest(body, {}), 0, cache);
  expect(response).toBeDefined();
  return { response: response!, blocks: blockReadStats.blocks - before, statements };
}

const comparable = (response: SearchResponse): unknown =>
  JSON.parse(JSON.stringify({ ...response, took: 0 })) as unknown;

/** Blocks of the query's terms: what counting every match (track_total_hits: true) reads. */
async function blocksOf(index: string, body: Record<string, unknown>): Promise<number> {
  return (await viaFastPath(index, { ...body, track_total_hits: true })).blocks;
}

describe('the fast path reads only competitive posting blocks', () => {
  const queries = [
    { match: { body: 'common' } },
    { match: { body: 'common rare' } },
    { match: { body: 'usual common often' } },
    { match: { body: 'odd common usual' } },
    { match: { body: { query: 'rare common', operator: 'and' } } },
    { match: { body: { query: 'usual often', operator: 'and' } } },
    { match: { body: { query: 'common usual', operator: 'and' } } },
    { match: { body: { query: 'burst cluster', operator: 'and' } } },
    { match: { body: 'burst often' } },
    { term: { body: 'usual' } },
    { multi_match: { query: 'common rare', fields: ['body', 'body^2'], tie_breaker: 0.5 } },
    { multi_match: { query: 'odd usual common', fields: ['body^0.5', 'body'], type: 'most_fields' } },
    {
      bool: {
        should: [{ match: { body: 'rare' } }, { match: { body: 'common' } }],
        filter: [{ term: { body: 'usual' } }],
      },
    },
    {
      bool: {
        must: [{ match: { body: 'common' } }],
        should: [{ match: { body: 'odd rare' } }],
        must_not: [{ term: { body: 'f3' } }],
      },
    },
    { match: { body: { query: 'common usual rare odd', minimum_should_match: 2 } } },
  ];
  const extras: Record<string, unknown>[] = [
    {},
    { track_total_hits: false },
    { size: 3, from: 2, track_total_hits: 100 },
    { min_score: 1.2 },
  ];

  it('answers as the SQL path does, with and without a cache, over one index and two', async () => {
    const caches = [undefined, new PostingsCache(4 * 2 ** 20), new PostingsCache(200_000)];
    for (const query of queries)
      for (const index of [big, `${big},${small}`])
        for (const extra of extras) {
          const body = { query, size: 10, ...extra };
          const expected = comparable(await viaSql(index, body));
          for (const cache of caches) {
            try {
              expect(comparable((await viaFastPath(index, body, cache)).response)).toEqual(expected);
              // The second time from what the first left in the cache.
              if (cache)
                expect(comparable((await viaFastPath(index, body, cache)).response)).toEqual(expected);
            } catch (error) {
              throw new Error(`${index} ${cache?.maxBytes}: ${JSON.stringify(body)}\n${String(error)}`);
            }
          }
        }
  }, 900_000);

  it('reads a fraction of the blocks of frequent terms for an OR past track_total_hits', async () => {
    for (const [words, tth, fraction] of [
      ['odd common', undefined, 0.25],
      ['odd rare common', undefined, 0.25],
      ['odd usual', 100, 0.7],
      ['burst', 100, 0.3],
      ['burst cluster', 100, 0.3],
    ] as const) {
      const body = { query: { match: { body: words } }, size: 10, track_total_hits: tth };
      const held = await blocksOf(big, body);
      const { response, blocks } = await viaFastPath(big, body);
      expect(response.hits.total).toEqual({ value: tth ?? 10_000, relation: 'gte' });
      expect(comparable(response)).toEqual(comparable(await viaSql(big, body)));
      expect(blocks).toBeLessThan(held * fraction);
    }
  });

  it('reads of an AND the rarest term and only the blocks of the others that hold its documents', async () => {
    const body = { query: { match: { body: { query: 'odd common', operator: 'and' } } }, size: 10 };
    const held = (
      await viaFastPath(big, { query: { match: { body: 'odd common' } }, track_total_hits: true })
    ).blocks;
    const { response, blocks } = await viaFastPath(big, body);
    expect(comparable(response)).toEqual(comparable(await viaSql(big, body)));
    expect(blocks).toBeLessThan(held * 0.5);
  });

  it('reads of an AND past track_total_hits the blocks that hold the limit and those that can make the page', async () => {
    const held = (
      await viaFastPath(big, { query: { match: { body: 'burst cluster' } }, track_total_hits: true })
    ).blocks;
    for (const extra of [
      { track_total_hits: 100 },
      { track_total_hits: false },
      { track_total_hits: 500, size: 3 },
    ]) {
      const body = {
        query: { match: { body: { query: 'burst cluster', operator: 'and' } } },
        size: 10,
        ...extra,
      };
      const { response, blocks } = await viaFastPath(big, body);
      expect(comparable(response)).toEqual(comparable(await viaSql(big, body)));
      expect(blocks).toBeLessThan(held * 0.3);
    }
  });

  it('scores a fraction of the matches of multi_match, bool and minimum_should_match past track_total_hits', async () => {
    const readers = openMappingReaders(await resolveSearchIndices(store.pool, big));
    for (const query of queries.slice(-5)) {
      const plan = planFastMatch(readers[0]!, parseSearchRequest({ query }, {}))!;
      const postings = await loadMatchPostings(store.pool, plan);
      const matches = scoreMatchPlan(plan.root, postings).length;
      const collector: TopCollector = {
        heap: new TopDocsHeap(10),
        shard: 0,
        total: 0,
        limit: 10_000,
        minScore: undefined,
        maxScore: -Infinity,
        scored: 0,
      };
      expect(collectTopTree(plan.root, postings, collector)).toBe(true);
      expect(Math.min(collector.total, 10_001)).toBe(Math.min(matches, 10_001));
      // Past the 10,000 counted, most documents are skipped unscored.
      if (matches > 10_000) expect(collector.scored).toBeLessThan(10_000 + (matches - 10_000) / 2);
      else expect(collector.scored).toBe(matches);
    }
  });

  it('answers a repeated search from the cache in one statement, reading no block again', async () => {
    const cache = new PostingsCache(16 * 2 ** 20);
    const body = { query: { match: { body: 'usual common often' } }, size: 10 };
    const first = await viaFastPath(big, body, cache);
    expect(first.blocks).toBeGreaterThan(0);
    const again = await viaFastPath(big, body, cache);
    expect(again.blocks).toBe(0);
    expect(again.statements).toBe(1);
    expect(comparable(again.response)).toEqual(comparable(first.response));
    expect(cache.size.bytes).toBeLessThanOrEqual(16 * 2 ** 20);
  });
});
