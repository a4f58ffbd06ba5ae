import { Client } from 'es8';
import type { Pool } from 'pg';
import { uniqueId } from '@acme/testkit';
import { fastSearch } from '../../../src/search/fast-search';
import { executeSearch, type SearchResponse } from '../../../src/search/execute-search';
import { PostingsCache } from '../../../src/search/fast-match/postings-cache';
import { resolveSearchIndices } from '../../../src/search/search-index-resolver';
import { openIndexReaders } from '../../../src/query/index-reader';
import { parseSearchRequest } from '../../../src/query/parse/search-request';
import { startSearchStore, type RunningSearchStore } from '../../support/start-search-store';

/**
 * The fast path reads the search catalog inside its own statements (search/fast-search.ts): after the
 * expression's first search, a search whose postings are not cached makes two statements in all (the
 * postings, then the page with the catalog), and still answers from the current catalog when an alias
 * moved since the readers it started with were derived.
 */
let store: RunningSearchStore;
let es: Client;
const suffix = uniqueId('cf')
  .toLowerCase()
  .replace(/[^a-z0-9]/g, '');

/** The store's pool, recording each statement's name. */
const names: string[] = [];
let counting: Pool;

beforeAll(async () => {
  store = await startSearchStore();
  es = new Client({ node: store.url });
  counting = {
    query: (...args: unknown[]) => {
      const first = args[0] as string | { name?: string };
      names.push(typeof first === 'string' ? 'unnamed' : (first.name ?? 'unnamed'));
      return (store.pool.query as (...a: unknown[]) => unknown).apply(store.pool, args);
    },
  } as unknown as Pool;
});

afterAll(async () => {
  await es.close();
  await store.stop();
});

async function viaSql(index: string, body: Record<string, unknown>): Promise<SearchResponse> {
  const client = await store.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const readers = await openIndexReaders(client, await resolveSearchIndices(client, index));
    const response = await executeSearch(client, readers, parseSearchRequest(body, {}), {}, 0);
    await client.query('COMMIT');
    return response;
  } finally {
    client.release();
  }
}

async function viaFastSearch(
  cache: PostingsCache,
  index: string,
  body: Record<string, unknown>,
): Promise<SearchResponse> {
  names.length = 0;
  const { body: answer } = await fastSearch(
    counting,
    index,
    { ignoreUnavailable: false },
    parseSearchRequest(body, {}),
    0,
    cache,
  );
  expect(answer).toBeDefined();
  return answer!;
}

const comparable = (response: SearchResponse) =>
  JSON.parse(JSON.stringify({ ...response, took: 0 })) as unknown;
const ids = (response: SearchResponse) =>
  (response.hits.hits as { _index: string; _id: string }[]).map((h) => `${h._index}/${h._id}`);

async function createIndex(index: string, bodies: string[]): Promise<void> {
  await es.indices.create({ index, mappings: { properties: { body: { type: 'text' } } } });
  const bulk = await es.bulk({
    refresh: true,
    operations: bodies.flatMap((body, i) => [{ index: { _index: index, _id: String(i) } }, { body }]),
  });
  if (bulk.errors) throw new Error('fixture bulk failed');
}

describe('the catalog read inside the fast path statements', () => {
  it('reads it with the page when the postings are not cached: two statements, the SQL answer', async () => {
    const index = `cf-page-${suffix}`;
    await createIndex(index, ['apple banana', 'apple cherry cherry', 'banana date', 'cherry', 'elder apple']);
    const cache = new PostingsCache(8 * 2 ** 20);
    const first = { query: { match: { body: 'apple' } } };
    // The expression's first search: no readers to start with, so the catalog is read on its own.
    expect(comparable(await viaFastSearch(cache, index, first))).toEqual(
      comparable(await viaSql(index, first)),
    );
    expect(names).toContain('search-catalog-by-name');
    for (const words of ['cherry banana', 'date elder']) {
      const body = { query: { match: { body: words } } };
      const answer = await viaFastSearch(cache, index, body);
      expect(names).toEqual(['fast-match-postings', 'fast-match-page-by-name-3']);
      expect(comparable(answer)).toEqual(comparable(await viaSql(index, body)));
    }
    // Cached now: one statement, the cache check with the catalog.
    const again = { query: { match: { body: 'cherry banana' } } };
    expect(comparable(await viaFastSearch(cache, index, again))).toEqual(
      comparable(await viaSql(index, again)),
    );
    expect(names).toEqual(['fast-match-check-by-name-6']);
  });

  it('reads it with an empty page too, instead of a statement of its own', async () => {
    const index = `cf-empty-${suffix}`;
    await createIndex(index, ['apple banana', 'cherry']);
    const cache = new PostingsCache(8 * 2 ** 20);
    await viaFastSearch(cache, index, { query: { match: { body: 'apple' } } });
    const none = await viaFastSearch(cache, index, { query: { match: { body: 'zucchini' } } });
    expect(ids(none)).toEqual([]);
    expect(none.hits.total).toEqual({ value: 0, relation: 'eq' });
    // One word: the one-term top-k statement (load-top-term-postings.ts) reads it.
    expect(names).toEqual(['fast-match-top-term', 'fast-match-page-by-name-3']);
  });

  it('answers from the current catalog when an alias moved since the last search', async () => {
    const alias = `cf-alias-${suffix}`;
    const one = `cf-one-${suffix}`;
    const two = `cf-two-${suffix}`;
    await createIndex(one, ['apple banana', 'banana']);
    await createIndex(two, ['apple cherry', 'cherry banana', 'banana banana']);
    await es.indices.updateAliases({ actions: [{ add: { index: one, alias } }] });
    const cache = new PostingsCache(8 * 2 ** 20);
    expect(ids(await viaFastSearch(cache, alias, { query: { match: { body: 'apple' } } }))).toEqual([
      `${one}/0`,
    ]);
    await es.indices.updateAliases({
      actions: [{ remove: { index: one, alias } }, { add: { index: two, alias } }],
    });
    // Not cached for either index: the search starts on the first index's readers, learns of the
    // move from the page statement's catalog, and runs again on the second index.
    const body = { query: { match: { body: 'banana' } } };
    const answer = await viaFastSearch(cache, alias, body);
    expect(comparable(answer)).toEqual(comparable(await viaSql(two, body)));
    expect(ids(answer).every((id) => id.startsWith(`${two}/`))).toBe(true);
    expect(ids(answer)).toHaveLength(2);
  });
});
