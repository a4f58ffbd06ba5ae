import type { PoolClient } from 'pg';
import { createIndexFixture, type IndexFixture } from './support/index-fixture';
import type { IndexContext } from '../../src/index/index-writer';
import { MERGE_AT } from '../../src/index/build-blocks';
import { mergeSegments } from '../../src/index/segment-merge';
import { createSegmentMerger } from '../../src/index/segment-merger';
import { reclaimMergedBlocks } from '../../src/index/reclaim-merged-blocks';
import { rebuildBloatedBlockIndexes } from '../../src/index/rebuild-block-indexes';

let fx: IndexFixture;
beforeAll(async () => {
  fx = await createIndexFixture();
  await fx.pool.query('CREATE EXTENSION IF NOT EXISTS pg_freespacemap');
});
afterAll(() => fx.end());

const mappings = { properties: { body: { type: 'text' as const } } };

/** Two documents over `terms` distinct words: each batch adds one small block to each of those terms. */
const wide = (batch: number, terms: number) =>
  Object.fromEntries(
    [0, 1].map((k) => [
      `b${batch}-${k}`,
      { body: Array.from({ length: terms }, (_, i) => `w${i}`).join(' ') },
    ]),
  );

/** Each block of the index as `term/base/xmin`: a block a merge rewrote has a new xmin. */
async function blockVersions(index: IndexContext): Promise<Set<string>> {
  const { rows } = await fx.pool.query<{ v: string }>(
    `SELECT term_id || '/' || base_doc_key || '/' || xmin::text AS v FROM posting_blocks WHERE index_id = $1`,
    [index.indexId],
  );
  return new Set(rows.map((r) => r.v));
}

/** What a search reads: every posting and each term's totals. */
async function searchable(index: IndexContext) {
  const postings = await fx.pool.query(
    `SELECT term_id, doc_key, freq, norm FROM postings WHERE index_id = $1 ORDER BY term_id, doc_key`,
    [index.indexId],
  );
  const terms = await fx.pool.query(
    `SELECT term, doc_freq, total_term_freq FROM terms WHERE index_id = $1 ORDER BY term`,
    [index.indexId],
  );
  return { postings: postings.rows, terms: terms.rows };
}

/** Free bytes the free space map lists for posting_blocks: where new rows can go without growing the file. */
async function reusableBytes(): Promise<number> {
  const { rows } = await fx.pool.query<{ bytes: string }>(
    "SELECT coalesce(sum(avail), 0) AS bytes FROM pg_freespace('posting_blocks')",
  );
  return Number(rows[0]!.bytes);
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

/** Merges every candidate run now; the blocks the rounds deleted. */
async function mergeAll(index: IndexContext): Promise<number> {
  let deleted = 0;
  for (;;) {
    const round = await locked(index, (client) => mergeSegments(client, index.indexId));
    if (round.terms === 0) return deleted;
    deleted += round.blocksRead;
  }
}

describe('the space merges free', () => {
  it('hands the reclaim the blocks its rounds deleted, then reclaims and rebuilds once nothing is left to merge', async () => {
    const index = await fx.createIndex(mappings);
    for (let b = 0; b < MERGE_AT + 1; b++) await fx.putDocs(index, wide(b, 60));
    const before = await blockVersions(index);
    const calls: { dead: number; drained: boolean }[] = [];
    let rebuilds = 0;
    const merger = createSegmentMerger(fx.pool, {
      quietMs: 20,
      maxDeferMs: 1000,
      reclaim: async (_pool, dead, drained) => {
        calls.push({ dead, drained });
        return drained;
      },
      rebuild: async () => {
        rebuilds++;
        return false;
      },
    });
    merger.noteWrites([index.indexId]);
    await merger.idle();
    const after = await blockVersions(index);
    const deleted = [...before].filter((v) => !after.has(v)).length;
    expect(deleted).toBeGreaterThanOrEqual(60 * MERGE_AT);
    // One call per round that merged, counting on (no call vacuumed), then the drained one with the total.
    expect(calls.at(-1)).toEqual({ dead: deleted, drained: true });
    expect(calls.slice(0, -1).every((c) => !c.drained)).toBe(true);
    expect(calls.slice(0, -1).map((c) => c.dead)).toEqual(
      [...calls.slice(0, -1).map((c) => c.dead)].sort((a, b) => a - b),
    );
    expect(rebuilds).toBe(1);

    // Nothing merged: no reclaim, no rebuild.
    const made = calls.length;
    merger.noteWrites([index.indexId]);
    await merger.idle();
    expect(calls).toHaveLength(made);
    expect(rebuilds).toBe(1);
  });

  it('makes the space of merged blocks reusable once enough of them are dead, and only then', async () => {
    const index = await fx.createIndex(mappings);
    for (let b = 0; b < MERGE_AT + 1; b++) await fx.putDocs(index, wide(b, 80));
    const deleted = await mergeAll(index);
    expect(deleted).toBeGreaterThanOrEqual(80 * MERGE_AT);
    const free = await reusableBytes();

    // Below the thresholds: no VACUUM, the dead blocks' space is not listed.
    expect(await reclaimMergedBlocks(fx.pool, deleted, false, { minDead: deleted + 1 })).toBe(false);
    await fx.pool.query('ANALYZE posting_blocks'); // the live count the fraction is of (the stats lag)
    expect(await reclaimMergedBlocks(fx.pool, deleted, false, { minDead: 1, fraction: 1e9 })).toBe(false);
    expect(await reusableBytes()).toBe(free);

    const searched = await searchable(index);
    expect(await reclaimMergedBlocks(fx.pool, deleted, true, { minDead: deleted })).toBe(true);
    // At least half of what the deleted blocks took (each > 60 bytes with its line pointer) is free.
    expect((await reusableBytes()) - free).toBeGreaterThan(30 * deleted);
    expect(await searchable(index)).toEqual(searched);
  });

  it('rebuilds a primary key the merges left mostly empty, and leaves a sound one alone', async () => {
    const index = await fx.createIndex(mappings);
    for (let b = 0; b < 2 * MERGE_AT; b++) await fx.putDocs(index, wide(b, 300));
    await mergeAll(index);
    await fx.pool.query('VACUUM posting_blocks');
    const size = async (name: string) =>
      Number(
        (await fx.pool.query<{ s: string }>('SELECT pg_relation_size($1::regclass) AS s', [name])).rows[0]!.s,
      );
    const bloated = await size('posting_blocks_pkey');
    const searched = await searchable(index);

    // Not worth it under the default minimum excess (a test database's key is far below 8 MB).
    expect(await rebuildBloatedBlockIndexes(fx.pool)).toBe(false);
    // Deferred while a transaction is open (a scroll's snapshot): a concurrent rebuild would wait for it.
    const reader = await fx.pool.connect();
    try {
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await reader.query('SELECT count(*) FROM posting_blocks');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await rebuildBloatedBlockIndexes(fx.pool, { minExcessBytes: 0, oldTransactionMs: 10 })).toBe(
        false,
      );
      expect(await size('posting_blocks_pkey')).toBe(bloated);
    } finally {
      await reader.query('ROLLBACK');
      reader.release();
    }
    expect(await rebuildBloatedBlockIndexes(fx.pool, { minExcessBytes: 0 })).toBe(true);
    expect(await size('posting_blocks_pkey')).toBeLessThan(bloated / 2);
    expect(await searchable(index)).toEqual(searched);
    const { rows: indexes } = await fx.pool.query(
      `SELECT i.relname AS name, x.indisvalid AS valid, x.indisprimary AS primary FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = 'posting_blocks'::regclass ORDER BY 1`,
    );
    expect(indexes).toEqual([
      { name: 'posting_blocks_merge_candidates', valid: true, primary: false },
      { name: 'posting_blocks_pkey', valid: true, primary: true },
    ]);
    // Sound now: left alone.
    expect(await rebuildBloatedBlockIndexes(fx.pool, { minExcessBytes: 0 })).toBe(false);
  });

  it('drops the invalid copy an interrupted rebuild left', async () => {
    await fx.putDocs(await fx.createIndex(mappings), wide(0, 3));
    // What a failed REINDEX CONCURRENTLY leaves: an invalid index named after the one it rebuilt.
    await expect(
      fx.pool.query(
        'CREATE UNIQUE INDEX CONCURRENTLY posting_blocks_pkey_ccnew ON posting_blocks (index_id)',
      ),
    ).rejects.toThrow(/duplicate|could not create unique index/);
    const invalid = () =>
      fx.pool.query(
        `SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
          WHERE x.indrelid = 'posting_blocks'::regclass AND NOT x.indisvalid`,
      );
    expect((await invalid()).rows).toEqual([{ relname: 'posting_blocks_pkey_ccnew' }]);
    await rebuildBloatedBlockIndexes(fx.pool);
    expect((await invalid()).rows).toEqual([]);
  });
});
