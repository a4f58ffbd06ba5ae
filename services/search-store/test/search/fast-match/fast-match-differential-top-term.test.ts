import { Client } from 'es8';
import type { Pool, QueryConfig } from 'pg';
import { uniqueId } from '@acme/testkit';
import { resolveSearchIndices } from '../../../src/search/search-index-resolver';
import { openMappingReaders } from '../../../src/search/fast-match/open-mapping-readers';
import { planFastMatch, type FastMatchPlan } from '../../../src/search/fast-match/plan-fast-match';
import { loadMatchPostings, type LoadedPostings } from '../../../src/search/fast-match/load-match-postings';
import {
  loadTopTermPostings,
  TOP_TERM_POSTINGS,
} from '../../../src/search/fast-match/load-top-term-postings';
import { PostingsCache } from '../../../src/search/fast-match/postings-cache';
import { parseSearchRequest } from '../../../src/query/parse/search-request';
import { startSearchStore, type RunningSearchStore } from '../../support/start-search-store';
import { seededRandom as random } from '../../support/seeded-random';
import { fastMatchOracle, comparable, bulkIndex } from '../../support/fast-match-oracle';

/**
 * A match of one word over a long list reads only the posting blocks whose peaks (posting_blocks.peaks,
 * migration 0032) can reach its top k (load-top-term-postings.ts). Hits, scores, totals and max_score
 * must stay those of the SQL plans: with ties at the k-th score, blocks whose peaks are unknown,
 * paging, every track_total_hits, and a list that changes between the two statements.
 */
let store: RunningSearchStore;
let es: Client;
const { viaSql, viaFastPath } = fastMatchOracle(() => store.pool);
const suffix = uniqueId('fmt')
  .toLowerCase()
  .replace(/[^a-z0-9]/g, '');
const index = `fmt-${suffix}`;
const other = `fmt-b-${suffix}`;
const DOCS = 24_000;

/**
 * `long` in every document (lengths vary: many ties), `peak` in 7 of 8 with three more occurrences
 * in one of 700 (a few blocks hold the top), `tie` in 7 of 8 and thrice in one of 500, those all of
 * ten tokens (48 documents share the best score, in about as many blocks), `rare` in one of 40.
 */
function text(i: number, prng: () => number): string {
  const parts = ['long'];
  if (i % 8 !== 0) parts.push('peak');
  if (i % 700 === 3) parts.push('peak', 'peak', 'peak');
  if (i % 8 !== 1) parts.push('tie');
  if (i % 40 === 7) parts.push('rare');
  if (i % 500 === 5) {
    parts.push('tie', 'tie');
    while (parts.length < 10) parts.push(`g${parts.length}`);
    return parts.join(' ');
  }
  if (prng() < 0.1) parts.push('long');
  for (let j = 1 + Math.floor(prng() * 14); j > 0; j--) parts.push(`f${Math.floor(prng() * 40)}`);
  return parts.join(' ');
}

/** Every block's peaks as the migration's backfill computes them (after a test set some NULL). */
async function fillPeaks(): Promise<void> {
  await store.pool.query('UPDATE posting_blocks SET peaks = block_peaks(freqs, norms) WHERE peaks IS NULL');
}

beforeAll(async () => {
  store = await startSearchStore();
  es = new Client({ node: store.url });
  const prng = random(2327);
  for (const [name, count] of [
    [index, DOCS],
    [other, 3000],
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
        { body: text(i * 700 + 3, prng) },
      ]).flat(),
    ],
  });
  if (churn.errors) throw new Error('churn bulk failed');
}, 180_000);
afterAll(async () => {
  await es.close();
  await store.stop();
});

const WORDS = ['peak', 'tie', 'long', 'rare', 'absent'];

const QUERIES: Record<string, unknown>[] = WORDS.flatMap((word) => [
  { match: { body: word } },
  { match: { body: { query: word, operator: 'and' } } },
  { match: { body: `${word} ${word}` } },
  { match: { body: { query: word, boost: 2.5 } } },
]);

const EXTRAS: Record<string, unknown>[] = [
  {},
  { size: 5, from: 7 },
  { size: 100 },
  { size: 10, from: 90 },
  { size: 1 },
  { size: 0 },
  { track_total_hits: true },
  { track_total_hits: false },
  { track_total_hits: 100 },
  { min_score: 1.5 },
];

async function expectSame(indices: string[], cache?: () => PostingsCache): Promise<void> {
  for (const query of QUERIES)
    for (const target of indices)
      for (const extra of EXTRAS) {
        const body = { query, size: 10, ...extra };
        const fast = await viaFastPath(target, body, cache?.());
        expect(fast).toBeDefined();
        try {
          expect(comparable(fast!)).toEqual(comparable(await viaSql(target, body)));
        } catch (error) {
          throw new Error(`${target}: ${JSON.stringify(body)}\n${String(error)}`);
        }
      }
}

async function planOf(word: string): Promise<FastMatchPlan> {
  const readers = openMappingReaders(await resolveSearchIndices(store.pool, index));
  return planFastMatch(readers[0]!, parseSearchRequest({ query: { match: { body: word } } }, {}))!;
}

/** loadTopTermPostings with the whole read counted, and the list it answered. */
async function readTop(
  word: string,
  k: number,
  db: Pool = store.pool,
  minPostings = TOP_TERM_POSTINGS,
): Promise<{ list: LoadedPostings['terms'] extends Map<string, infer L> ? L : never; wholeReads: number }> {
  const plan = await planOf(word);
  let wholeReads = 0;
  const readAll = (): Promise<LoadedPostings> => {
    wholeReads++;
    return loadMatchPostings(store.pool, plan);
  };
  const loaded = await loadTopTermPostings(db, plan, k, readAll, minPostings);
  return { list: loaded.terms.get(`body\u0000${word}`)!, wholeReads };
}

async function blockCount(word: string): Promise<number> {
  const { rows } = await store.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM posting_blocks b JOIN terms t ON t.index_id = b.index_id AND t.term_id = b.term_id
     JOIN indices i ON i.index_id = t.index_id WHERE i.name = $1 AND t.term = $2`,
    [index, word],
  );
  return Number(rows[0]!.n);
}

describe('one-term top-k over long lists', () => {
  it('reads only the promising blocks of a long list, and whole lists below the threshold', async () => {
    const peak = await readTop('peak', 10);
    expect(peak.wholeReads).toBe(0);
    expect(peak.list.docFreq).toBeGreaterThan(TOP_TERM_POSTINGS);
    const blocks = await blockCount('peak');
    expect(peak.list.blocks!.ends.length).toBeGreaterThan(0);
    expect(peak.list.blocks!.ends.length * 4).toBeLessThan(blocks);
    expect(peak.list.docs.length * 4).toBeLessThan(peak.list.docFreq);
    // 48 documents tie at the best score: their blocks are all read (ties at θ included).
    const tie = await readTop('tie', 10);
    expect(tie.wholeReads).toBe(0);
    expect(tie.list.blocks!.ends.length).toBeGreaterThanOrEqual(10);
    expect(tie.list.blocks!.ends.length * 2).toBeLessThan(await blockCount('tie'));
    // A short list: one statement, whole.
    const rare = await readTop('rare', 10);
    expect(rare.wholeReads).toBe(0);
    expect(rare.list.docs.length).toBe(rare.list.docFreq);
    // A long list under a higher threshold: whole, in one statement.
    const whole = await readTop('peak', 10, store.pool, 10 ** 9);
    expect(whole.wholeReads).toBe(0);
    expect(whole.list.docs.length).toBe(whole.list.docFreq);
  });

  it('reads the whole list when the blocks read do not prove the top k', async () => {
    // One block of `peak` whose postings all score low claims a pair far above them: it alone is
    // read for k = 1, and its best cannot beat the other blocks' bounds.
    const block = `SELECT b.index_id, b.term_id, b.base_doc_key FROM posting_blocks b
       JOIN terms t ON t.index_id = b.index_id AND t.term_id = b.term_id
       JOIN indices i ON i.index_id = t.index_id
       WHERE i.name = $1 AND t.term = 'peak' AND b.max_freq = 1 ORDER BY b.base_doc_key LIMIT 1`;
    await store.pool.query(
      `UPDATE posting_blocks b SET peaks = '\\x0000003200'::bytea FROM (${block}) x
       WHERE b.index_id = x.index_id AND b.term_id = x.term_id AND b.base_doc_key = x.base_doc_key`,
      [index],
    );
    try {
      const read = await readTop('peak', 1);
      expect(read.wholeReads).toBe(1);
      expect(read.list.docs.length).toBe(read.list.docFreq);
      await expectSame([index]);
    } finally {
      await store.pool.query(
        `UPDATE posting_blocks b SET peaks = block_peaks(b.freqs, b.norms) FROM (${block}) x
         WHERE b.index_id = x.index_id AND b.term_id = x.term_id AND b.base_doc_key = x.base_doc_key`,
        [index],
      );
    }
  }, 120_000);

  it('gives the SQL plans’ hits, scores and totals, with and without a cache', async () => {
    await expectSame([index, `${index},${other}`]);
    // A cache with room for the lists reads them whole (to keep them); one without reads in part.
    for (const bytes of [64 * 2 ** 20, 256 * 2 ** 10]) {
      const cache = new PostingsCache(bytes);
      await expectSame([index], () => cache);
    }
    // A list read in part is not kept as if whole.
    const small = new PostingsCache(256 * 2 ** 10);
    await viaFastPath(index, { query: { match: { body: 'peak' } } }, small);
    expect(small.known(await planOf('peak')).size).toBe(0);
    // With room for it, the list is read whole and kept.
    const roomy = new PostingsCache(64 * 2 ** 20);
    await viaFastPath(index, { query: { match: { body: 'peak' } } }, roomy);
    expect(roomy.known(await planOf('peak')).size).toBe(1);
  }, 120_000);

  it('bounds blocks whose peaks are unknown by max_freq and min_norm', async () => {
    await store.pool.query(
      `UPDATE posting_blocks b SET peaks = NULL FROM terms t JOIN indices i ON i.index_id = t.index_id
       WHERE i.name = $1 AND t.term = ANY($2::text[]) AND b.index_id = t.index_id AND b.term_id = t.term_id
         AND b.base_doc_key % 3 = 0`,
      [index, ['peak', 'tie', 'long']],
    );
    try {
      await expectSame([index]);
      const peak = await readTop('peak', 10);
      expect(peak.wholeReads).toBe(0);
      expect(peak.list.docs.length).toBeLessThan(peak.list.docFreq);
      // With every block unknown nothing proves a bar: the whole list.
      await store.pool.query(
        `UPDATE posting_blocks b SET peaks = NULL FROM terms t JOIN indices i ON i.index_id = t.index_id
         WHERE i.name = $1 AND t.term = 'peak' AND b.index_id = t.index_id AND b.term_id = t.term_id`,
        [index],
      );
      const unknown = await readTop('peak', 10);
      expect(unknown.wholeReads).toBe(1);
      expect(unknown.list.docs.length).toBe(unknown.list.docFreq);
      await expectSame([index]);
    } finally {
      await fillPeaks();
    }
  }, 120_000);

  it('reads the whole list again when it changed between the two statements', async () => {
    let changed = 0;
    const db = {
      query: async (config: QueryConfig) => {
        const result = await store.pool.query(config);
        if (config.name === 'fast-match-top-term' && changed++ === 0) {
          // A new best document for `peak`, committed between the statements.
          await es.index({
            index,
            id: 'new-peak',
            document: { body: 'peak peak peak peak peak' },
            refresh: true,
          });
        }
        return result;
      },
    } as unknown as Pool;
    const before = await readTop('peak', 10);
    const after = await readTop('peak', 10, db);
    expect(changed).toBe(1);
    expect(after.wholeReads).toBe(1);
    expect(after.list.docFreq).toBe(before.list.docFreq + 1);
    expect(after.list.docs.length).toBe(after.list.docFreq);
    await expectSame([index]);
  }, 120_000);
});
