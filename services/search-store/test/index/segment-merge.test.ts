import type { PoolClient } from 'pg';
import { createIndexFixture, type IndexFixture } from './support/index-fixture';
import type { IndexContext } from '../../src/index/index-writer';
import { BLOCK_SIZE, MERGE_AT, unpackBlock } from '../../src/index/build-blocks';
import { mergeSegments } from '../../src/index/segment-merge';
import { createSegmentMerger, mergeAllSegments } from '../../src/index/segment-merger';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

const mappings = { properties: { body: { type: 'text' as const }, tag: { type: 'keyword' as const } } };

/** Every block of the index: its term, key range, postings and the totals and run it carries. */
async function blocks(index: IndexContext) {
  const { rows } = await fx.pool.query<{
    term_id: string;
    base: string;
    last: string;
    offsets: Buffer;
    freqs: Buffer;
    norms: Buffer;
    max_freq: number;
    min_norm: number;
    small_run: number;
  }>(
    `SELECT term_id, base_doc_key AS base, last_doc_key AS last, doc_offsets AS offsets, freqs, norms, max_freq,
            min_norm, small_run
     FROM posting_blocks WHERE index_id = $1 ORDER BY term_id, base_doc_key`,
    [index.indexId],
  );
  return rows.map((r) => ({ ...r, ...unpackBlock(r.offsets, r.freqs, r.norms) }));
}

/** What a search reads: every posting by term, and each term's totals as the `terms` view gives them. */
async function searchable(index: IndexContext) {
  const postings = await fx.pool.query(
    `SELECT term_id, doc_key, freq, norm FROM postings WHERE index_id = $1 ORDER BY term_id, doc_key`,
    [index.indexId],
  );
  const terms = await fx.pool.query(
    `SELECT term, doc_freq, total_term_freq FROM terms WHERE index_id = $1 ORDER BY field_id, term`,
    [index.indexId],
  );
  return { postings: postings.rows, terms: terms.rows };
}

/** Terms whose totals differ from a recount of their blocks, and blocks breaking 0004's contract. */
async function broken(index: IndexContext) {
  const { rows } = await fx.pool.query<{ wrong: number; overlapping: number; bad: number }>(
    `SELECT
       (SELECT count(*)::int FROM terms t
          JOIN (SELECT term_id, count(*) AS df, sum(freq) AS ttf
                FROM postings WHERE index_id = $1 GROUP BY term_id) p USING (term_id)
         WHERE t.index_id = $1 AND (t.doc_freq <> p.df OR t.total_term_freq <> p.ttf)) AS wrong,
       (SELECT count(*)::int FROM (
          SELECT base_doc_key, lag(last_doc_key) OVER (PARTITION BY term_id ORDER BY base_doc_key) AS previous_last
          FROM posting_blocks WHERE index_id = $1) b WHERE b.previous_last >= b.base_doc_key) AS overlapping,
       (SELECT count(*)::int FROM posting_blocks WHERE index_id = $1
          AND (octet_length(norms) NOT BETWEEN 1 AND 128
               OR posting_int(doc_offsets, octet_length(doc_offsets) / octet_length(norms), 0) <> 0
               OR base_doc_key + posting_int(doc_offsets, octet_length(doc_offsets) / octet_length(norms),
                                             octet_length(norms) - 1) <> last_doc_key)) AS bad`,
    [index.indexId],
  );
  return rows[0];
}

/** Small blocks per term, the most any term has (what a search reads beyond full blocks). */
async function mostSmallBlocks(index: IndexContext): Promise<number> {
  const { rows } = await fx.pool.query<{ n: number }>(
    `SELECT coalesce(max(n), 0)::int AS n FROM (
       SELECT count(*) AS n FROM posting_blocks WHERE index_id = $1 AND octet_length(norms) < 128 GROUP BY term_id) s`,
    [index.indexId],
  );
  return rows[0]!.n;
}

async function locked<T>(index: IndexContext, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await fx.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT 1 FROM indices WHERE index_id = $1 FOR UPDATE', [index.indexId]);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

const batch = (from: number, count: number) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, k) => {
      const i = from + k;
      return [
        `d${i}`,
        {
          body: `alpha ${i % 2 === 0 ? 'beta beta' : 'gamma'} w${i % 13} ${'alpha '.repeat(i % 3)}`,
          tag: `t${i % 4}`,
        },
      ];
    }),
  );

describe('segments and their merge', () => {
  it('writes each batch as new blocks and never rewrites a block already written', async () => {
    const index = await fx.createIndex(mappings);
    await fx.putDocs(index, batch(0, 20));
    const first = await fx.pool.query(
      `SELECT term_id, base_doc_key, xmin::text AS xmin FROM posting_blocks WHERE index_id = $1 ORDER BY 1, 2`,
      [index.indexId],
    );
    await fx.putDocs(index, batch(20, 20));
    const after = await fx.pool.query(
      `SELECT term_id, base_doc_key, xmin::text AS xmin FROM posting_blocks WHERE index_id = $1 ORDER BY 1, 2`,
      [index.indexId],
    );
    // Every row of the first batch is still there, the same tuple version.
    const kept = new Set(after.rows.map((r) => `${r.term_id}/${r.base_doc_key}/${r.xmin}`));
    expect(first.rows.every((r) => kept.has(`${r.term_id}/${r.base_doc_key}/${r.xmin}`))).toBe(true);
    const alpha = (await blocks(index)).filter((b) => b.small_run > 0 && b.offsets.length === 20);
    expect(alpha.map((b) => b.small_run).sort()).toContain(2);
    expect(await broken(index)).toEqual({ wrong: 0, overlapping: 0, bad: 0 });
  });

  it('merges runs into full blocks: the same postings and totals, no candidate left', async () => {
    const index = await fx.createIndex(mappings);
    for (let b = 0; b < MERGE_AT + 3; b++) await fx.putDocs(index, batch(b * 30, 30));
    const before = await searchable(index);
    expect(await mostSmallBlocks(index)).toBe(MERGE_AT + 3);
    const round = await locked(index, (client) => mergeSegments(client, index.indexId));
    expect(round.terms).toBeGreaterThan(0);
    expect(round.blocksWritten).toBeLessThan(round.blocksRead);
    expect(await searchable(index)).toEqual(before);
    expect(await broken(index)).toEqual({ wrong: 0, overlapping: 0, bad: 0 });
    // alpha is in all 330 documents: two full blocks and one of 74.
    const sizes = new Map<string, number[]>();
    for (const b of await blocks(index))
      sizes.set(b.term_id, [...(sizes.get(b.term_id) ?? []), b.offsets.length]);
    expect([...sizes.values()]).toContainEqual([BLOCK_SIZE, BLOCK_SIZE, 330 - 2 * BLOCK_SIZE]);
    expect(await mostSmallBlocks(index)).toBeLessThan(MERGE_AT);
    expect((await locked(index, (client) => mergeSegments(client, index.indexId))).terms).toBe(0);
  });

  it('keeps the small blocks a search reads per term within the policy bound while batches keep coming', async () => {
    const index = await fx.createIndex(mappings);
    let worst = 0;
    for (let b = 0; b < 3 * MERGE_AT; b++) {
      await fx.putDocs(index, batch(b * 7, 7));
      worst = Math.max(worst, await mostSmallBlocks(index));
      await locked(index, (client) => mergeAllSegments(client, index.indexId, MERGE_AT));
    }
    // MERGE_AT, and one more once the writer counts a run from its cached tail that the merge has
    // rewritten (its count goes on past the multiple of MERGE_AT the candidate index lists: 0030).
    expect(worst).toBeGreaterThanOrEqual(MERGE_AT);
    expect(worst).toBeLessThanOrEqual(MERGE_AT + 1);
    expect(await broken(index)).toEqual({ wrong: 0, overlapping: 0, bad: 0 });
    // Force merge (max_num_segments 1): one small block per term at most.
    const before = await searchable(index);
    await locked(index, (client) => mergeAllSegments(client, index.indexId, 2));
    expect(await mostSmallBlocks(index)).toBe(1);
    expect(await searchable(index)).toEqual(before);
  });

  it('keeps statistics equal to a recount through merges, deletes and replaces', async () => {
    const index = await fx.createIndex(mappings);
    for (let b = 0; b < MERGE_AT + 2; b++) await fx.putDocs(index, batch(b * 15, 15));
    await fx.deleteDocs(index, ['d3', 'd40', 'd149']);
    await locked(index, (client) => mergeSegments(client, index.indexId));
    await fx.putDocs(index, { d41: { body: 'alpha replaced', tag: 'x' } });
    await fx.deleteDocs(index, ['d0', 'd1', 'd148']);
    await locked(index, (client) => mergeAllSegments(client, index.indexId, 2));
    expect(await broken(index)).toEqual({ wrong: 0, overlapping: 0, bad: 0 });
    const { rows } = await fx.pool.query(
      `SELECT doc_freq FROM terms WHERE index_id = $1 AND term = 'alpha'`,
      [index.indexId],
    );
    expect(rows).toEqual([{ doc_freq: 15 * (MERGE_AT + 2) - 6 }]); // six deleted, d41 replaced
  });

  it('loses nothing when bulks commit while merges run', async () => {
    const index = await fx.createIndex(mappings);
    for (let b = 0; b < MERGE_AT; b++) await fx.putDocs(index, batch(b * 10, 10));
    let writing = true;
    const merging = (async () => {
      let merged = 0;
      while (writing)
        merged += (await locked(index, (client) => mergeSegments(client, index.indexId, { maxTerms: 3 })))
          .terms;
      return merged;
    })();
    // One writer (the API serialises writers to an index on its row lock), racing the merge rounds.
    for (let b = 0; b < 24; b++) await fx.putDocs(index, batch(1000 + b * 10, 10));
    writing = false;
    expect(await merging).toBeGreaterThan(0);
    const total = MERGE_AT * 10 + 24 * 10;
    const { rows } = await fx.pool.query(
      `SELECT doc_freq FROM terms WHERE index_id = $1 AND term = 'alpha'`,
      [index.indexId],
    );
    expect(rows).toEqual([{ doc_freq: total }]);
    const docs = await fx.pool.query(
      `SELECT count(*)::int AS n FROM documents d WHERE d.index_id = $1 AND EXISTS (
         SELECT 1 FROM postings p JOIN terms t USING (index_id, term_id)
         WHERE p.index_id = $1 AND t.term = 'alpha' AND p.doc_key = d.doc_key)`,
      [index.indexId],
    );
    expect(docs.rows).toEqual([{ n: total }]);
    expect(await broken(index)).toEqual({ wrong: 0, overlapping: 0, bad: 0 });
  });

  it('merges in the background after writes pause, and never waits for a writer holding the index', async () => {
    const index = await fx.createIndex(mappings);
    for (let b = 0; b < MERGE_AT + 1; b++) await fx.putDocs(index, batch(b * 9, 9));
    const before = await searchable(index);
    const merger = createSegmentMerger(fx.pool, { quietMs: 20, maxDeferMs: 1000 });
    // A writer holds the index row: the merger leaves it (no wait), nothing is merged.
    const writer = await fx.pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('SELECT 1 FROM indices WHERE index_id = $1 FOR UPDATE', [index.indexId]);
      merger.noteWrites([index.indexId]);
      await merger.idle();
      expect(await mostSmallBlocks(index)).toBe(MERGE_AT + 1);
    } finally {
      await writer.query('ROLLBACK');
      writer.release();
    }
    // Its commit notes the write again: now the merge runs to the end.
    merger.noteWrites([index.indexId]);
    await merger.idle();
    expect(await mostSmallBlocks(index)).toBeLessThan(MERGE_AT);
    expect(await searchable(index)).toEqual(before);
    expect(await broken(index)).toEqual({ wrong: 0, overlapping: 0, bad: 0 });
  });
});
