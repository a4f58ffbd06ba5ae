import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';
import { seededRandom } from '../support/seeded-random';
import { segmentMergerFor } from '../../src/index/segment-merger';
import { createIndexWriter } from '../../src/index/index-writer';
import type { IndexMapping } from '../../src/mapping/mapping-types';
import { peakPairs } from '../../src/index/block-peak-pairs';
import { unpackBlock } from '../../src/index/build-blocks';
import type { Pool, PoolClient } from 'pg';

type Queryable = Pool | PoolClient;

/**
 * posting_blocks.peaks (migration 0032) is what a reader may skip a block by, so every writer of the
 * table must keep it equal to the front of the row's own postings: a batch's COPY, the seam's merge
 * path, the background merge, a force merge, a delete's and a replace's rewrite of the blocks it hits
 * (SQL, block_peaks), a clone's copy and a reindex. After all of them, every row is checked against
 * peakPairs over its packed columns; none may be NULL (a COPY or INSERT that leaves the column out
 * writes NULL, and a rewrite that forgets it keeps a stale front).
 */
let store: RunningSearchStore;
const VOCABULARY = Array.from({ length: 40 }, (_, i) => `w${i.toString(36)}`);

/** Documents of 1 to ~120 words, Zipf-like, some words repeated: varied freqs and norms within a block. */
function documentsFrom(seed: number, count: number): Record<string, unknown>[] {
  const rnd = seededRandom(seed);
  const word = (): string => VOCABULARY[Math.floor(VOCABULARY.length * rnd() ** 2)]!;
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(rnd() ** 2 * 120);
    const words = Array.from({ length }, word);
    // A short burst of one word: freqs above 1 in short and long fields alike.
    if (rnd() < 0.3) words.push(...Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => words[0]!));
    return { body: words.join(' '), title: word(), tag: `t${Math.floor(rnd() * 4)}` };
  });
}

async function bulk(lines: unknown[]): Promise<void> {
  const response = await call(
    store.url,
    'POST',
    '/_bulk?refresh=true',
    `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    { 'content-type': 'application/x-ndjson' },
  );
  expect(response.json).toMatchObject({ errors: false });
}

interface Audit {
  rows: number;
  /** Rows whose peaks is NULL. */
  nulls: number;
  /** Rows whose peaks differs from the front of their own postings. */
  wrong: string[];
  /** Rows with a front of 2 pairs or more (the check is not only of empty fronts). */
  fronts: number;
  byIndex: Map<string, number>;
}

/** Every posting_blocks row of the database, its peaks against peakPairs over its own postings. */
async function audit(db: Queryable = store.pool): Promise<Audit> {
  const { rows } = await db.query<{
    index_id: string;
    term_id: string;
    base_doc_key: string;
    doc_offsets: Buffer;
    freqs: Buffer;
    norms: Buffer;
    peaks: Buffer | null;
  }>(`SELECT index_id, term_id, base_doc_key, doc_offsets, freqs, norms, peaks FROM posting_blocks`);
  const out: Audit = { rows: rows.length, nulls: 0, wrong: [], fronts: 0, byIndex: new Map() };
  for (const row of rows) {
    out.byIndex.set(row.index_id, (out.byIndex.get(row.index_id) ?? 0) + 1);
    if (row.peaks === null) {
      out.nulls++;
      continue;
    }
    const block = unpackBlock(row.doc_offsets, row.freqs, row.norms);
    const want = Buffer.from(peakPairs(block.freqs, block.norms, 0, block.freqs.length));
    if (!want.equals(row.peaks))
      out.wrong.push(`${row.index_id}/${row.term_id}/${row.base_doc_key}: ${row.peaks.toString('hex')}`);
    if (row.peaks.length > 0) out.fronts++;
  }
  return out;
}

async function expectExactPeaks(db?: Queryable): Promise<Audit> {
  const result = await audit(db);
  expect(result.nulls).toBe(0);
  expect(result.wrong).toEqual([]);
  return result;
}

const indexIdOf = async (name: string): Promise<string> =>
  (await store.pool.query<{ index_id: string }>('SELECT index_id FROM indices WHERE name = $1', [name]))
    .rows[0]!.index_id;

beforeAll(async () => {
  store = await startSearchStore();
  for (const name of ['peaks', 'peaks_dest'])
    await call(store.url, 'PUT', `/${name}`, {
      settings: { number_of_replicas: 0 },
      mappings: { properties: { body: { type: 'text' }, title: { type: 'text' }, tag: { type: 'keyword' } } },
    });
}, 60_000);
afterAll(async () => {
  await store.stop();
});

describe('posting_blocks.peaks after every writer', () => {
  it('equals the front of each block after batches, merges, deletes, replaces, a clone and a reindex', async () => {
    // 24 bulks of 60: the frequent words' runs of small blocks reach MERGE_AT (the background merge).
    const docs = documentsFrom(11, 24 * 60);
    for (let b = 0; b < 24; b++) {
      const lines: unknown[] = [];
      for (let i = b * 60; i < (b + 1) * 60; i++)
        lines.push({ index: { _index: 'peaks', _id: `d${i}` } }, docs[i]);
      await bulk(lines);
    }
    const merger = segmentMergerFor(store.pool);
    const peaksId = await indexIdOf('peaks');
    merger.noteWrites([peaksId]);
    await merger.idle();
    const merged = await store.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM posting_blocks WHERE index_id = $1 AND octet_length(norms) = 128',
      [peaksId],
    );
    expect(merged.rows[0]!.n).toBeGreaterThan(0);
    const loaded = await expectExactPeaks();
    expect(loaded.fronts).toBeGreaterThan(20);

    // Deletes and replaces: removePostings rewrites the blocks they hit in SQL (block_peaks).
    const before = await store.pool.query<{ peaks: string }>(
      `SELECT string_agg(encode(peaks, 'hex'), ',' ORDER BY term_id, base_doc_key) AS peaks
       FROM posting_blocks WHERE index_id = $1`,
      [peaksId],
    );
    const replacements = documentsFrom(12, 200);
    const lines: unknown[] = [];
    for (let i = 0; i < 200; i++) {
      const id = `d${(i * 7) % 1440}`;
      if (i % 3 === 0) lines.push({ delete: { _index: 'peaks', _id: id } });
      else lines.push({ index: { _index: 'peaks', _id: id } }, replacements[i]);
    }
    await bulk(lines);
    await call(store.url, 'POST', '/peaks/_delete_by_query?refresh=true', { query: { term: { tag: 't3' } } });
    const after = await store.pool.query<{ peaks: string }>(
      `SELECT string_agg(encode(peaks, 'hex'), ',' ORDER BY term_id, base_doc_key) AS peaks
       FROM posting_blocks WHERE index_id = $1`,
      [peaksId],
    );
    expect(after.rows[0]!.peaks).not.toBe(before.rows[0]!.peaks);
    await expectExactPeaks();

    // The merge after the deletes, and a force merge (every run, minRun 2).
    merger.noteWrites([peaksId]);
    await merger.idle();
    const forced = await call(store.url, 'POST', '/peaks/_forcemerge');
    expect(forced.status).toBe(200);
    await expectExactPeaks();

    // The seam's merge path (posting-blocks.repo.ts mergeBlocks): a batch whose doc keys fall before
    // the terms' last keys, never sent by the API. Audited in its transaction, then rolled back: the
    // index has no documents rows for these keys.
    const writer = createIndexWriter();
    const client = await store.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ mappings: IndexMapping }>(
        'SELECT mappings FROM indices WHERE index_id = $1',
        [peaksId],
      );
      const context = { indexId: peaksId, name: 'peaks', mappings: rows[0]!.mappings, settings: {} };
      const blocksBefore = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM posting_blocks WHERE index_id = $1',
        [peaksId],
      );
      // Keys the deletes above freed, below the terms' last keys.
      const free = await client.query<{ k: string }>(
        `SELECT k FROM generate_series(1, (SELECT max(doc_key) FROM documents WHERE index_id = $1)) AS k
         WHERE NOT EXISTS (SELECT 1 FROM doc_tokens d WHERE d.index_id = $1 AND d.doc_key = k) ORDER BY k LIMIT 3`,
        [peaksId],
      );
      expect(free.rows).toHaveLength(3);
      await writer.add(
        client,
        context,
        free.rows.map(({ k }) => ({ docKey: k, source: { body: 'w0 w0 w0 w1 w0 w2 w1' } })),
      );
      const blocksAfter = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM posting_blocks WHERE index_id = $1',
        [peaksId],
      );
      // Merged into the terms' existing blocks, not appended as new small ones.
      expect(blocksAfter.rows[0]!.n).toBeLessThanOrEqual(blocksBefore.rows[0]!.n + 1);
      await expectExactPeaks(client);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }

    // A clone (copyInvertedIndex, SQL) and a reindex (the writer again, into another index).
    await call(store.url, 'PUT', '/peaks/_settings', { 'index.blocks.write': true });
    expect((await call(store.url, 'POST', '/peaks/_clone/peaks_clone')).status).toBe(200);
    const reindexed = await call(store.url, 'POST', '/_reindex?refresh=true', {
      source: { index: 'peaks' },
      dest: { index: 'peaks_dest' },
    });
    expect(reindexed.status).toBe(200);
    const final = await expectExactPeaks();
    const cloneId = await indexIdOf('peaks_clone');
    const destId = await indexIdOf('peaks_dest');
    expect(final.byIndex.get(cloneId)).toBe(final.byIndex.get(peaksId));
    expect(final.byIndex.get(destId)).toBeGreaterThan(0);
  }, 180_000);
});
