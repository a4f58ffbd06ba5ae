import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';
import { seededRandom as random } from '../support/seeded-random';
import { segmentMergerFor } from '../../src/index/segment-merger';

/**
 * A merge rewrites blocks, never what a search finds: the same requests before and after a force
 * merge (fast path for match/multi_match/term, SQL path for phrases and function_score, explain,
 * highlight, counts) answer byte for byte the same, on an index written as many small bulks.
 */
let store: RunningSearchStore;
const INDEX = 'segments';
const VOCABULARY = Array.from({ length: 80 }, (_, i) => `v${i.toString(36)}`);
/** Zipf-like words from a seeded generator: common words get long lists, rare ones a block a bulk. */
function wordsFrom(rnd: () => number): (n: number) => string {
  const word = (): string => VOCABULARY[Math.floor(VOCABULARY.length * rnd() ** 2)]!;
  return (n) => Array.from({ length: n }, word).join(' ');
}

async function smallBlocks(): Promise<number> {
  const { rows } = await store.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM posting_blocks b JOIN indices i USING (index_id)
     WHERE i.name = $1 AND octet_length(b.norms) < 128`,
    [INDEX],
  );
  return rows[0]!.n;
}

beforeAll(async () => {
  store = await startSearchStore();
  await call(store.url, 'PUT', `/${INDEX}`, {
    mappings: { properties: { title: { type: 'text' }, body: { type: 'text' }, tag: { type: 'keyword' } } },
  });
  // 40 bulks: each a segment; replaces and deletes among them.
  const words = wordsFrom(random(7));
  for (let b = 0; b < 40; b++) {
    const lines: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = b % 5 === 4 && i < 3 ? String((b - 1) * 12 + i) : String(b * 12 + i);
      lines.push(JSON.stringify({ index: { _index: INDEX, _id: id } }));
      lines.push(JSON.stringify({ title: words(3), body: words(20 + (i % 7)), tag: `t${i % 3}` }));
    }
    if (b % 7 === 6) lines.push(JSON.stringify({ delete: { _index: INDEX, _id: String(b * 12 - 20) } }));
    const bulk = await call(store.url, 'POST', '/_bulk?refresh=true', `${lines.join('\n')}\n`, {
      'content-type': 'application/x-ndjson',
    });
    expect(bulk.json).toMatchObject({ errors: false });
  }
  await segmentMergerFor(store.pool).idle();
}, 180_000);
afterAll(async () => {
  await store.stop();
});

/** The same requests for the same seed. */
function requests(seed: number): Record<string, unknown>[] {
  const words = wordsFrom(random(seed));
  const out: Record<string, unknown>[] = [];
  for (let q = 0; q < 6; q++) {
    out.push({ query: { match: { body: words(1 + (q % 3)) } }, size: 15 });
    out.push({ query: { match: { body: { query: words(2), operator: 'and' } } }, track_total_hits: true });
    out.push({ query: { multi_match: { query: words(2), fields: ['title^2', 'body'] } } });
    out.push({ query: { match_phrase: { body: words(2) } } });
    out.push({
      query: { bool: { must: [{ match: { body: words(1) } }], filter: [{ term: { tag: `t${q % 3}` } }] } },
      explain: q % 2 === 0,
      highlight: { fields: { body: {} } },
    });
    out.push({
      query: { function_score: { query: { match: { title: words(2) } }, boost_mode: 'sum', weight: 2 } },
    });
  }
  return out;
}

async function answers(seed: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const body of requests(seed)) {
    const response = await call(store.url, 'POST', `/${INDEX}/_search`, body);
    expect(response.status).toBe(200);
    const { took: _took, ...rest } = response.json as Record<string, unknown>;
    out.push(rest);
  }
  const count = await call(store.url, 'POST', `/${INDEX}/_count`, {
    query: { match: { body: VOCABULARY[1] } },
  });
  out.push(count.json);
  return out;
}

describe('searches across a merge', () => {
  it('answers the same before and after a force merge rewrote the small blocks', async () => {
    const before = await answers(20261126);
    const small = await smallBlocks();
    const merged = await call(store.url, 'POST', `/${INDEX}/_forcemerge?max_num_segments=1`);
    expect(merged.status).toBe(200);
    expect(await smallBlocks()).toBeLessThan(small);
    expect(await answers(20261126)).toEqual(before);
  }, 120_000);
});
