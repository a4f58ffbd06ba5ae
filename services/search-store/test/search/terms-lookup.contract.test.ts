import { Client } from 'es8';
import { uniqueId } from '@acme/testkit';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';

/** terms lookup (ES terms query docs, "Terms lookup"): values fetched from another document. */
let store: RunningSearchStore;
let es: Client;
const suffix = uniqueId('t')
  .toLowerCase()
  .replace(/[^a-z0-9]/g, '');
const users = `users-${suffix}`;
const posts = `posts-${suffix}`;

beforeAll(async () => {
  store = await startSearchStore();
  es = new Client({ node: store.url });
  await es.indices.create({ index: posts, mappings: { properties: { author: { type: 'keyword' } } } });
  await es.bulk({
    refresh: true,
    operations: [
      { index: { _index: users, _id: 'u1' } },
      { name: 'ann', follows: ['bob', 'cid'], profile: { friends: [{ id: 'dee' }, { id: 'bob' }] } },
      { index: { _index: posts, _id: 'p1' } },
      { author: 'bob' },
      { index: { _index: posts, _id: 'p2' } },
      { author: 'cid' },
      { index: { _index: posts, _id: 'p3' } },
      { author: 'dee' },
    ],
  });
});
afterAll(async () => {
  await es.close();
  await store.stop();
});

async function ids(query: Record<string, unknown>): Promise<string[]> {
  const res = await es.search({ index: posts, query });
  return res.hits.hits.map((h) => h._id!).sort();
}

describe('terms lookup', () => {
  it('matches the values at the path of the looked-up document, with a constant score', async () => {
    expect(await ids({ terms: { author: { index: users, id: 'u1', path: 'follows' } } })).toEqual([
      'p1',
      'p2',
    ]);
    const res = await es.search({
      index: posts,
      query: { terms: { author: { index: users, id: 'u1', path: 'follows' }, boost: 2 } },
    });
    expect(res.hits.hits.map((h) => h._score)).toEqual([2, 2]);
  });

  it('follows a dotted path through arrays of objects, and accepts routing', async () => {
    expect(
      await ids({ terms: { author: { index: users, id: 'u1', path: 'profile.friends.id', routing: 'r' } } }),
    ).toEqual(['p1', 'p3']);
  });

  it('matches nothing when the document or the path is missing', async () => {
    expect(await ids({ terms: { author: { index: users, id: 'nobody', path: 'follows' } } })).toEqual([]);
    expect(await ids({ terms: { author: { index: users, id: 'u1', path: 'nothing' } } })).toEqual([]);
    const count = await es.count({
      index: posts,
      query: { bool: { must_not: [{ terms: { author: { index: users, id: 'u1', path: 'follows' } } }] } },
    });
    expect(count.count).toBe(1);
  });

  it('answers index_not_found_exception for a missing lookup index, and parse errors for bad lookups', async () => {
    const missing = await call(store.url, 'POST', `/${posts}/_search`, {
      query: { terms: { author: { index: `nope-${suffix}`, id: 'u1', path: 'follows' } } },
    });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: { type: 'index_not_found_exception', reason: `no such index [nope-${suffix}]` },
      status: 404,
    });
    const unknown = await call(store.url, 'POST', `/${posts}/_search`, {
      query: { terms: { author: { index: users, id: 'u1', path: 'follows', type: '_doc' } } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({
      error: {
        type: 'x_content_parse_exception',
        reason: expect.stringContaining('[terms_lookup] unknown field [type]'),
      },
    });
    const incomplete = await call(store.url, 'POST', `/${posts}/_search`, {
      query: { terms: { author: { index: users } } },
    });
    expect(incomplete.status).toBe(400);
    expect(incomplete.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'Required [id, path]' },
    });
  });
});
