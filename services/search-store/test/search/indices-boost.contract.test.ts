import { Client } from 'es8';
import { uniqueId } from '@acme/testkit';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';

/** indices_boost (ES "Search multiple data streams and indices": index boost) on real Postgres. */
let store: RunningSearchStore;
let es: Client;
const suffix = uniqueId('b')
  .toLowerCase()
  .replace(/[^a-z0-9]/g, '');
const one = `boost-one-${suffix}`;
const two = `boost-two-${suffix}`;
const alias = `boost-alias-${suffix}`;

beforeAll(async () => {
  store = await startSearchStore();
  es = new Client({ node: store.url });
  for (const index of [one, two]) {
    await es.indices.create({ index, mappings: { properties: { title: { type: 'text' } } } });
    await es.bulk({
      refresh: true,
      operations: [
        { index: { _index: index, _id: '1' } },
        { title: 'quick brown fox' },
        { index: { _index: index, _id: '2' } },
        { title: 'lazy dog' },
      ],
    });
  }
  await es.indices.putAlias({ index: one, name: alias });
});
afterAll(async () => {
  await es.close();
  await store.stop();
});

async function scores(body: Record<string, unknown>, query = ''): Promise<[string, number][]> {
  const res = await call(store.url, 'POST', `/${one},${two}/_search${query}`, body);
  expect(res.status).toBe(200);
  const hits = (res.json as { hits: { hits: { _index: string; _id: string; _score: number }[] } }).hits.hits;
  return hits.map((h) => [`${h._index === one ? 'one' : 'two'}/${h._id}`, h._score]);
}

describe('indices_boost', () => {
  it('multiplies each index score by its boost (array form through the client)', async () => {
    const res = await es.search({
      index: [one, two],
      query: { match_all: {} },
      indices_boost: [{ [one]: 2 }, { [two]: 3 }],
    });
    expect(res.hits.hits.map((h) => [h._index, h._score])).toEqual([
      [two, 3],
      [two, 3],
      [one, 2],
      [one, 2],
    ]);
  });

  it('is a BoostQuery: BM25 scores equal the same query with that boost', async () => {
    const boosted = await scores({ query: { match: { title: 'quick' } }, indices_boost: [{ [one]: 1.7 }] });
    const plain = await scores({ query: { match: { title: { query: 'quick', boost: 1.7 } } } });
    expect(boosted[0]).toEqual(plain.find(([k]) => k === 'one/1'));
    expect(boosted.find(([k]) => k === 'two/1')![1]).toBeLessThan(boosted[0]![1]);
  });

  it('resolves aliases and wildcards; the first entry naming an index wins', async () => {
    expect(await scores({ query: { match_all: {} }, indices_boost: [{ [alias]: 5 }] })).toEqual([
      ['one/1', 5],
      ['one/2', 5],
      ['two/1', 1],
      ['two/2', 1],
    ]);
    const wildcard = await scores({
      query: { ids: { values: ['1'] } },
      indices_boost: [{ [two]: 4 }, { [`boost-*-${suffix}`]: 2 }],
    });
    expect(wildcard).toEqual([
      ['two/1', 4],
      ['one/1', 2],
    ]);
  });

  it('takes the deprecated object form', async () => {
    expect(
      await scores({ query: { ids: { values: ['2'] } }, indices_boost: { [one]: 1.5, [two]: 0.5 } }),
    ).toEqual([
      ['one/2', 1.5],
      ['two/2', 0.5],
    ]);
  });

  it('answers index_not_found_exception for an unknown index, unless ignore_unavailable', async () => {
    const res = await call(store.url, 'POST', `/${one}/_search`, {
      indices_boost: [{ [`nope-${suffix}`]: 2 }],
    });
    expect(res.status).toBe(404);
    expect((res.json as { error: Record<string, unknown> }).error).toMatchObject({
      type: 'index_not_found_exception',
      index: `nope-${suffix}`,
    });
    expect(
      await scores(
        { query: { ids: { values: ['1'] } }, indices_boost: [{ [`nope-${suffix}`]: 2 }] },
        '?ignore_unavailable=true',
      ),
    ).toEqual([
      ['one/1', 1],
      ['two/1', 1],
    ]);
  });

  it('boosts a scroll and a point in time search too', async () => {
    const scrolled = await es.search({
      index: [one, two],
      scroll: '1m',
      size: 1,
      query: { ids: { values: ['1'] } },
      indices_boost: [{ [two]: 3 }],
    });
    expect(scrolled.hits.hits.map((h) => [h._index, h._score])).toEqual([[two, 3]]);
    const next = await es.scroll({ scroll_id: scrolled._scroll_id!, scroll: '1m' });
    expect(next.hits.hits.map((h) => [h._index, h._score])).toEqual([[one, 1]]);
    await es.clearScroll({ scroll_id: scrolled._scroll_id! });
    const pit = await es.openPointInTime({ index: [one, two], keep_alive: '1m' });
    const inPit = await es.search({
      pit: { id: pit.id },
      query: { ids: { values: ['2'] } },
      indices_boost: [{ [one]: 2 }],
    });
    expect(inPit.hits.hits.map((h) => [h._index, h._score])).toEqual([
      [one, 2],
      [two, 1],
    ]);
    await es.closePointInTime({ id: pit.id });
  });

  it('refuses malformed entries as SearchSourceBuilder does', async () => {
    const bad = async (indicesBoost: unknown): Promise<Record<string, unknown>> => {
      const res = await call(store.url, 'POST', `/${one}/_search`, { indices_boost: indicesBoost });
      expect(res.status).toBe(400);
      return (res.json as { error: Record<string, unknown> }).error;
    };
    expect(await bad([1])).toMatchObject({
      type: 'parsing_exception',
      reason: 'Expected [START_OBJECT] in [indices_boost] but found [VALUE_NUMBER]',
    });
    expect(await bad([{ [one]: 'x' }])).toMatchObject({
      reason: 'Expected [VALUE_NUMBER] in [indices_boost] but found [VALUE_STRING]',
    });
    expect(await bad([{ [one]: 1, [two]: 2 }])).toMatchObject({
      reason: 'Expected [END_OBJECT] in [indices_boost] but found [FIELD_NAME]',
    });
    expect(await bad('x')).toMatchObject({ reason: 'Unknown key for a VALUE_STRING in [indices_boost].' });
  });
});
