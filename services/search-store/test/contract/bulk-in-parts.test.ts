import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';
import { seededRandom } from '../support/seeded-random';

const NDJSON = { 'content-type': 'application/x-ndjson' };

/** A bulk body of `count` documents whose terms recur across parts, plus words of one stretch each. */
function bulkBody(count: number, seed: number, prefix: string): string {
  const random = seededRandom(seed);
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
  let body = '';
  for (let i = 0; i < count; i++) {
    const text = Array.from({ length: 2 + Math.floor(random() * 9) }, () => words[Math.floor(random() * 6)]!);
    text.push(`${prefix}w${Math.floor(i / 50)}`);
    body += `${JSON.stringify({ index: { _id: `${prefix}${i}` } })}\n`;
    body += `${JSON.stringify({ body: text.join(' '), tag: `t${i % 3}`, n: i })}\n`;
  }
  return body;
}

async function bulk(server: RunningSearchStore, body: string): Promise<void> {
  const response = await call(server.url, 'POST', '/parts/_bulk', body, NDJSON);
  expect(response.status).toBe(200);
  expect((response.json as { errors: boolean }).errors).toBe(false);
}

async function count(server: RunningSearchStore): Promise<number> {
  const response = await call(server.url, 'GET', '/parts/_count');
  return (response.json as { count: number }).count;
}

describe('a bulk batch written in parts (index/save-in-parts.ts)', () => {
  // 20 documents a part: a batch of 800 is 40 parts, each with its own statements.
  let parted: RunningSearchStore;
  let whole: RunningSearchStore;
  beforeAll(async () => {
    [parted, whole] = await Promise.all([startSearchStore({}, { partDocs: 20 }), startSearchStore()]);
    for (const server of [parted, whole]) {
      const created = await call(server.url, 'PUT', '/parts', {
        mappings: {
          properties: { body: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'integer' } },
        },
      });
      expect(created.status).toBe(200);
      await bulk(server, bulkBody(200, 1, 'a'));
    }
  });
  afterAll(async () => {
    await Promise.all([parted.stop(), whole.stop()]);
  });

  it('is seen by a search running meanwhile entirely or not at all', async () => {
    const seen = new Set<number>();
    let polls = 0;
    let done = false;
    const writing = bulk(parted, bulkBody(800, 2, 'b')).finally(() => (done = true));
    while (!done) {
      seen.add(await count(parted));
      const search = await call(parted.url, 'POST', '/parts/_search', {
        size: 0,
        track_total_hits: true,
        query: { match_all: {} },
        aggs: { n: { value_count: { field: 'n' } } },
      });
      const json = search.json as {
        hits: { total: { value: number } };
        aggregations: { n: { value: number } };
      };
      // Postings and doc values of one snapshot: the same documents.
      expect(json.aggregations.n.value).toBe(json.hits.total.value);
      seen.add(json.hits.total.value);
      polls += 1;
    }
    await writing;
    expect(polls).toBeGreaterThan(1);
    for (const value of seen) expect([200, 1000]).toContain(value);
    expect(await count(parted)).toBe(1000);
  });

  it('leaves statistics and scores exactly as a batch written in one piece', async () => {
    await bulk(whole, bulkBody(800, 2, 'b'));
    const query = {
      size: 30,
      query: { match: { body: 'alpha zeta bw3 aw1' } },
      aggs: { tags: { terms: { field: 'tag' }, aggs: { n: { sum: { field: 'n' } } } } },
    };
    const [a, b] = await Promise.all(
      [parted, whole].map(async (server) => {
        const response = await call(server.url, 'POST', '/parts/_search', query);
        const json = response.json as {
          hits: { total: unknown; hits: { _id: string; _score: number }[] };
          aggregations: unknown;
        };
        return {
          total: json.hits.total,
          hits: json.hits.hits.map((h) => [h._id, h._score]),
          aggs: json.aggregations,
        };
      }),
    );
    expect(a!.hits).toHaveLength(30);
    expect(a).toEqual(b);
  });

  it('stores each source byte for byte and each id exactly (binary COPY, nothing escaped)', async () => {
    const sources = [
      '{"body":\t"back\\\\slash \\"quoted\\" line\\nbreak tab\\t"}',
      '{ "body" : "caf\u00e9 \u{1F600} \\u00e9 \\\\N" ,\r "n": 1 }',
    ];
    const ids = ['tab\there', 'back\\slash\\N'];
    const body = ids.map((id, i) => `${JSON.stringify({ index: { _id: id } })}\n${sources[i]}\n`).join('');
    await bulk(parted, body);
    for (const [i, id] of ids.entries()) {
      const got = await call(parted.url, 'GET', `/parts/_source/${encodeURIComponent(id)}`);
      expect(got.status).toBe(200);
      // The line's text exactly: backslashes, escapes, raw tab and CR as whitespace, multi-byte characters.
      expect(got.text).toBe(sources[i]);
    }
  });
});
