import { Client } from 'es8';
import { uniqueId } from '@acme/testkit';
import { resolveSearchIndices } from '../../../src/search/search-index-resolver';
import { openMappingReaders } from '../../../src/search/fast-match/open-mapping-readers';
import { planFastMatch } from '../../../src/search/fast-match/plan-fast-match';
import { loadMatchPostings } from '../../../src/search/fast-match/load-match-postings';
import { parseBinaryBlocks, readBinaryLists } from '../../../src/search/fast-match/read-binary-lists';
import { PgArrayError } from '../../../src/search/fast-match/parse-pg-int-array';
import { parseSearchRequest } from '../../../src/query/parse/search-request';
import { startSearchStore, type RunningSearchStore } from '../../support/start-search-store';

/**
 * Long posting lists come by a binary COPY (read-binary-lists.ts) instead of the postings
 * statement's hex: the same postings, block bounds and term versions either way, over real Postgres.
 */
let store: RunningSearchStore;
let es: Client;
const index = `rb-${uniqueId('rb')
  .toLowerCase()
  .replace(/[^a-z0-9]/g, '')}`;

/**
 * 1,500 documents: `every` in each (offsets one byte wide), `third` in every third (blocks span
 * more than 256 doc keys: two-byte offsets), `loud` 300 times in a few (two-byte freqs), `rare` in two.
 */
function text(i: number): string {
  const words = ['every', `f${i % 17}`, `g${i % 5}`];
  if (i % 3 === 0) words.push('third', 'third');
  if (i % 400 === 7) words.push(...Array<string>(300).fill('loud'));
  if (i === 10 || i === 1400) words.push('rare');
  return words.join(' ');
}

beforeAll(async () => {
  store = await startSearchStore();
  es = new Client({ node: store.url });
  await es.indices.create({ index, mappings: { properties: { body: { type: 'text' } } } });
  for (let start = 0; start < 1500; start += 500) {
    const operations = Array.from({ length: 500 }, (_, j) => [
      { index: { _index: index, _id: String(start + j) } },
      { body: text(start + j) },
    ]).flat();
    const bulk = await es.bulk({ refresh: true, operations });
    if (bulk.errors) throw new Error('fixture bulk failed');
  }
  // Deletions and replacements: gaps in the lists and new doc keys at their end.
  const churn = await es.bulk({
    refresh: true,
    operations: [
      ...Array.from({ length: 40 }, (_, i) => ({ delete: { _index: index, _id: String(i * 31 + 2) } })),
      ...Array.from({ length: 20 }, (_, i) => [
        { index: { _index: index, _id: String(i * 13) } },
        { body: text(i * 13 + 1) },
      ]).flat(),
    ],
  });
  if (churn.errors) throw new Error('churn bulk failed');
});
afterAll(async () => {
  await es.close();
  await store.stop();
});

async function planOf(query: string) {
  const readers = openMappingReaders(await resolveSearchIndices(store.pool, index));
  return planFastMatch(readers[0]!, parseSearchRequest({ query: { match: { body: query } } }, {}))!;
}

describe('long posting lists read by binary COPY', () => {
  it('give the postings, block bounds and versions the postings statement gives', async () => {
    const plan = await planOf('every third loud rare missing');
    const hex = await loadMatchPostings(store.pool, plan, false, new Map(), 0, Infinity);
    const binary = await loadMatchPostings(store.pool, plan, false, new Map(), 0, 1);
    expect([...hex.terms.keys()].sort()).toEqual([
      'body\u0000every',
      'body\u0000loud',
      'body\u0000rare',
      'body\u0000third',
    ]);
    expect(binary.terms).toEqual(hex.terms);
    expect(binary.versions).toEqual(hex.versions);
    expect(binary.fields).toEqual(hex.fields);
    const every = hex.terms.get('body\u0000every')!;
    expect(every.docs.length).toBe(1500 - 40);
    expect(every.blocks!.ends.length).toBeGreaterThan(5);
    expect(Math.max(...hex.terms.get('body\u0000loud')!.freqs)).toBe(300);
  });

  it('carry each term’s version as the terms view reports it, so that no read falls back', async () => {
    const plan = await planOf('every third');
    const hex = await loadMatchPostings(store.pool, plan, false, new Map(), 0, Infinity);
    const ids = [...hex.versions.values()].map((v) => v.termId);
    const read = await readBinaryLists(store.pool, plan.reader.indexId, ids);
    for (const [key, version] of hex.versions) {
      const list = read.get(version.termId)!;
      expect(list.version).toBe(version.version);
      expect(list.postings.docs).toEqual(hex.terms.get(key)!.docs);
    }
  });

  it('is read again in one statement when a term changed between the two statements', async () => {
    const plan = await planOf('every third');
    const before = await loadMatchPostings(store.pool, plan, false, new Map(), 0, Infinity);
    // A write between the postings statement and the COPY: the first statement's rows are handed
    // over only once a new document holding both terms has committed, so the versions differ.
    const client = await store.pool.connect();
    const query = client.query.bind(client) as (config: unknown) => Promise<unknown>;
    let written = false;
    jest.spyOn(client, 'query').mockImplementation(((config: unknown) => {
      const result = query(config);
      if (written) return result;
      written = true;
      return result.then(async (rows) => {
        const bulk = await es.bulk({
          refresh: true,
          operations: [{ index: { _index: index, _id: 'new' } }, { body: 'every third' }],
        });
        if (bulk.errors) throw new Error('bulk failed');
        return rows;
      });
    }) as never);
    try {
      const after = await loadMatchPostings(client, plan, false, new Map(), 0, 1);
      expect(written).toBe(true);
      const every = after.terms.get('body\u0000every')!;
      expect(every.docs.length).toBe(before.terms.get('body\u0000every')!.docs.length + 1);
      expect(every.docFreq).toBe(every.docs.length);
      expect(after.versions.get('body\u0000every')).not.toEqual(before.versions.get('body\u0000every'));
      expect(after.fields.get('body')!.docCount).toBe(before.fields.get('body')!.docCount + 1);
    } finally {
      client.release();
    }
  });
});

describe('parseBinaryBlocks', () => {
  const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
  const trailer = Buffer.from([0xff, 0xff]);
  const int = (bytes: number, value: number): Buffer => {
    const b = Buffer.alloc(4 + bytes);
    b.writeInt32BE(bytes, 0);
    if (bytes === 8) b.writeBigInt64BE(BigInt(value), 4);
    else b.writeIntBE(value, 4, bytes);
    return b;
  };
  const bytea = (values: number[]): Buffer => {
    const b = Buffer.alloc(4 + values.length);
    b.writeInt32BE(values.length, 0);
    Buffer.from(values).copy(b, 4);
    return b;
  };
  const row = (fields: Buffer[]): Buffer => {
    const count = Buffer.alloc(2);
    count.writeInt16BE(fields.length, 0);
    return Buffer.concat([count, ...fields]);
  };
  const block = (termId: number, base: number, offsets: number[], freqs: number[], norms: number[]): Buffer =>
    row([
      int(8, termId),
      int(8, base),
      bytea(offsets),
      bytea(freqs),
      bytea(norms),
      int(4, 9),
      int(2, 3),
      int(4, 77),
    ]);

  it('reads blocks of every width into one list per term, the last block giving the version', () => {
    const data = Buffer.concat([
      header,
      block(5, 100, [0, 2, 1, 4], [1, 2], [10, 20]), // two-byte offsets: 100+2, 100+260
      block(5, 1000, [0, 0, 0, 7], [0, 1], [30]), // one four-byte offset: 1007
      block(6, 0, [3], [0, 200], [40]), // width-1 offset, two-byte freq 200
      trailer,
    ]);
    const lists = parseBinaryBlocks(data);
    const five = lists.get('5')!;
    expect([...five.postings.docs]).toEqual([102, 360, 1007]);
    expect([...five.postings.freqs]).toEqual([1, 2, 1]);
    expect([...five.postings.norms]).toEqual([10, 20, 30]);
    expect([...five.postings.blocks!.ends]).toEqual([2, 3]);
    expect(five.version).toBe('77/1000');
    expect([...lists.get('6')!.postings.freqs]).toEqual([200]);
  });

  it('tells apart term ids that differ in their high word, and reads int8 keys past 2^32', () => {
    const high = 2 ** 32 + 5; // the same low word as term 5
    const data = Buffer.concat([
      header,
      block(5, 2 ** 40, [0, 1], [1, 1], [1, 2]),
      block(high, 2 ** 33 + 7, [0], [3], [4]),
      block(high, 2 ** 52, [9], [1], [5]),
      block(5, 2 ** 41, [2], [4], [6]), // a term met again after another keeps one list
      trailer,
    ]);
    const lists = parseBinaryBlocks(data);
    expect([...lists.keys()]).toEqual(['5', String(high)]);
    expect([...lists.get('5')!.postings.docs]).toEqual([2 ** 40, 2 ** 40 + 1, 2 ** 41 + 2]);
    expect([...lists.get('5')!.postings.freqs]).toEqual([1, 1, 4]);
    expect([...lists.get(String(high))!.postings.docs]).toEqual([2 ** 33 + 7, 2 ** 52 + 9]);
    expect(lists.get(String(high))!.version).toBe(`77/${2 ** 52}`);
  });

  it('refuses what is not copyTermBlocks’s binary COPY', () => {
    expect(() => parseBinaryBlocks(Buffer.from('1\t2\n'))).toThrow(PgArrayError);
    const wrongCount = Buffer.concat([header, row([int(8, 5)]), trailer]);
    expect(() => parseBinaryBlocks(wrongCount)).toThrow(PgArrayError);
    const badWidth = Buffer.concat([header, block(5, 0, [1, 2, 3], [1, 1], [1, 1]), trailer]);
    expect(() => parseBinaryBlocks(badWidth)).toThrow(PgArrayError);
    const cut = Buffer.concat([header, block(5, 0, [1], [1], [1])]).subarray(0, header.length + 30);
    expect(() => parseBinaryBlocks(cut)).toThrow();
  });
});
