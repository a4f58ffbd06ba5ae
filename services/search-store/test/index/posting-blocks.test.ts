import { createIndexFixture, type IndexFixture } from './support/index-fixture';
import { unpackBlock } from '../../src/index/build-blocks';
import { createIndexWriter, type IndexContext } from '../../src/index/index-writer';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

const mappings = { properties: { body: { type: 'text' as const }, tag: { type: 'keyword' as const } } };

interface BlockRow {
  base: number;
  last: number;
  offsets: number[];
  freqs: number[];
  norms: number[];
  max_freq: number;
  min_norm: number;
}

async function blocksOf(index: IndexContext, term: string): Promise<BlockRow[]> {
  const { rows } = await fx.pool.query<{
    base: string;
    last: string;
    offsets: Buffer;
    freqs: Buffer;
    norms: Buffer;
    max_freq: number;
    min_norm: number;
  }>(
    `SELECT b.base_doc_key AS base, b.last_doc_key AS last, b.doc_offsets AS offsets, b.freqs, b.norms, b.max_freq, b.min_norm
     FROM posting_blocks b JOIN terms t ON t.index_id = b.index_id AND t.term_id = b.term_id
     WHERE b.index_id = $1 AND t.term = $2 ORDER BY b.last_doc_key`,
    [index.indexId, term],
  );
  // Packed columns (migration 0030), unpacked as the merge reads them.
  return rows.map((r) => ({
    ...r,
    ...unpackBlock(r.offsets, r.freqs, r.norms),
    base: Number(r.base),
    last: Number(r.last),
  }));
}

/** Every posting of the term, decoded from its blocks: doc key → [freq, norm]. */
function decode(blocks: BlockRow[]): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  for (const b of blocks) b.offsets.forEach((o, i) => out.set(b.base + o, [b.freqs[i]!, b.norms[i]!]));
  return out;
}

/** The statistics the writer keeps, next to a recount from blocks, token streams and doc values. */
async function recount(index: IndexContext): Promise<{ wrong: number; orphans: number; checked: number }> {
  const { rows } = await fx.pool.query<{ wrong: string; orphans: string; checked: string }>(
    `SELECT
       (SELECT count(*) FROM terms t
          LEFT JOIN (SELECT term_id, count(*) AS df, sum(freq) AS ttf
                     FROM postings WHERE index_id = $1 GROUP BY term_id) p USING (term_id)
         WHERE t.index_id = $1 AND (t.doc_freq <> coalesce(p.df, 0) OR t.total_term_freq <> coalesce(p.ttf, 0)))
       + (SELECT count(*) FROM (SELECT field_id, doc_count, sum_total_term_freq FROM field_stats WHERE index_id = $1) s
           FULL JOIN (SELECT field_id, count(*) AS c, sum(length) AS l
                      FROM doc_tokens WHERE index_id = $1 GROUP BY field_id
                      UNION ALL
                      SELECT field_id, count(DISTINCT doc_key), count(*) FROM doc_values
                      WHERE index_id = $1 AND num IS NOT NULL GROUP BY field_id) r
           USING (field_id)
          WHERE coalesce(s.doc_count, 0) <> coalesce(r.c, 0) OR coalesce(s.sum_total_term_freq, 0) <> coalesce(r.l, 0)) AS wrong,
       (SELECT count(*) FROM postings p WHERE p.index_id = $1
           AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.index_id = $1 AND d.doc_key = p.doc_key))
       + (SELECT count(*) FROM doc_tokens k WHERE k.index_id = $1
           AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.index_id = $1 AND d.doc_key = k.doc_key))
       + (SELECT count(*) FROM posting_blocks WHERE index_id = $1 AND octet_length(norms) = 0) AS orphans,
       (SELECT count(*) FROM terms WHERE index_id = $1) AS checked`,
    [index.indexId],
  );
  const r = rows[0]!;
  return { wrong: Number(r.wrong), orphans: Number(r.orphans), checked: Number(r.checked) };
}

const docs = (from: number, to: number, make: (i: number) => Record<string, unknown>) =>
  Object.fromEntries(Array.from({ length: to - from }, (_, k) => [`d${from + k}`, make(from + k)]));

describe('block postings', () => {
  it('writes a later batch as new blocks after the tail and splits at 128 documents', async () => {
    const index = await fx.createIndex(mappings);
    const first = await fx.putDocs(
      index,
      docs(0, 100, () => ({ body: 'alpha beta' })),
    );
    expect(await blocksOf(index, 'alpha')).toHaveLength(1);
    const second = await fx.putDocs(
      index,
      docs(100, 300, (i) => ({ body: i === 150 ? 'alpha alpha alpha' : 'alpha' })),
    );
    const blocks = await blocksOf(index, 'alpha');
    // The first batch's block stays as it was (migration 0026); the second batch's 200 postings are a
    // full block and a small one.
    expect(blocks.map((b) => b.offsets.length)).toEqual([100, 128, 72]);
    const keys = [...Object.values(first), ...Object.values(second)].map(Number).sort((a, b) => a - b);
    expect(blocks.map((b) => [b.base, b.last])).toEqual([
      [keys[0], keys[99]],
      [keys[100], keys[227]],
      [keys[228], keys[299]],
    ]);
    for (const b of blocks) {
      expect(b.offsets[0]).toBe(0);
      expect([...b.offsets].sort((x, y) => x - y)).toEqual(b.offsets);
    }
    expect([...decode(blocks).keys()]).toEqual(keys);
    // "alpha alpha alpha" (d150) is the one freq 3, in the second block; norms encode 3 and 1 tokens.
    expect(blocks.map((b) => b.max_freq)).toEqual([1, 3, 1]);
    expect(decode(blocks).get(Number(second.d150))).toEqual([3, 3]);
    expect(blocks[1]!.min_norm).toBe(1);
    // beta only in the first batch: one block of 100.
    expect((await blocksOf(index, 'beta')).map((b) => b.offsets.length)).toEqual([100]);
    expect(await recount(index)).toMatchObject({ wrong: 0, orphans: 0 });
  });

  it('removes a document from the middle of a block and keeps base, last and statistics exact', async () => {
    const index = await fx.createIndex(mappings);
    const keys = await fx.putDocs(
      index,
      docs(0, 5, (i) => ({ body: `gamma ${'delta '.repeat(i + 1)}` })),
    );
    await fx.deleteDocs(index, ['d2']);
    const [block] = await blocksOf(index, 'gamma');
    const remaining = ['d0', 'd1', 'd3', 'd4'].map((id) => Number(keys[id]));
    expect(block!.base).toBe(remaining[0]);
    expect(block!.last).toBe(remaining[3]);
    expect(block!.offsets).toEqual(remaining.map((k) => k - remaining[0]!));
    expect([...decode(await blocksOf(index, 'delta')).values()].map(([freq]) => freq)).toEqual([1, 2, 4, 5]);
    expect((await blocksOf(index, 'delta'))[0]!.max_freq).toBe(5);
    // Removing the first and the last documents moves base and last; removing all drops the block.
    await fx.deleteDocs(index, ['d0', 'd4']);
    const [shrunk] = await blocksOf(index, 'gamma');
    expect([shrunk!.base, shrunk!.last]).toEqual([Number(keys.d1), Number(keys.d3)]);
    expect(shrunk!.offsets).toEqual([0, Number(keys.d3) - Number(keys.d1)]);
    expect((await blocksOf(index, 'delta'))[0]!.max_freq).toBe(4);
    await fx.deleteDocs(index, ['d1', 'd3']);
    expect(await blocksOf(index, 'gamma')).toEqual([]);
    const { rows } = await fx.pool.query('SELECT count(*)::int AS n FROM terms WHERE index_id = $1', [
      index.indexId,
    ]);
    expect(rows[0]).toEqual({ n: 0 });
    expect(await recount(index)).toMatchObject({ wrong: 0, orphans: 0 });
  });

  it('replaces a document: the old posting leaves its block, the new one is a new block after it', async () => {
    const index = await fx.createIndex(mappings);
    const before = await fx.putDocs(
      index,
      docs(0, 3, () => ({ body: 'omega one', tag: 'x' })),
    );
    const after = await fx.putDocs(index, { d1: { body: 'omega omega two', tag: 'y' } });
    const omega = decode(await blocksOf(index, 'omega'));
    expect([...omega.keys()]).toEqual([Number(before.d0), Number(before.d2), Number(after.d1)]);
    expect(omega.get(Number(after.d1))).toEqual([2, 3]);
    expect(decode(await blocksOf(index, 'one')).size).toBe(2);
    expect(decode(await blocksOf(index, 'x')).size).toBe(2);
    const { rows } = await fx.pool.query(
      `SELECT t.term, t.doc_freq, t.total_term_freq::int AS ttf FROM terms t
       WHERE t.index_id = $1 ORDER BY t.term`,
      [index.indexId],
    );
    expect(rows).toEqual([
      { term: 'omega', doc_freq: 3, ttf: 4 },
      { term: 'one', doc_freq: 2, ttf: 2 },
      { term: 'two', doc_freq: 1, ttf: 1 },
      { term: 'x', doc_freq: 2, ttf: 2 },
      { term: 'y', doc_freq: 1, ttf: 1 },
    ]);
    // Positions come from the token stream: "omega omega two" → omega at 0 and 1.
    const positions = await fx.pool.query(
      `SELECT p.positions FROM postings p JOIN terms t USING (index_id, term_id)
       WHERE p.index_id = $1 AND t.term = 'omega' AND p.doc_key = $2`,
      [index.indexId, after.d1],
    );
    expect(positions.rows).toEqual([{ positions: [0, 1] }]);
  });

  it('keeps every statistic equal to a recount after a mixed workload across many blocks', async () => {
    const index = await fx.createIndex(mappings);
    const words = ['red', 'green', 'blue', 'cyan', 'teal'];
    const body = (i: number, salt: number) =>
      words.filter((_, w) => (i + salt) % (w + 2) === 0).join(' ') + ` the ${'red '.repeat((i % 3) + 1)}`;
    await fx.putDocs(
      index,
      docs(0, 300, (i) => ({ body: body(i, 0), tag: `t${i % 4}` })),
    );
    await fx.putDocs(
      index,
      docs(150, 450, (i) => ({ body: body(i, 1), tag: `t${i % 5}` })),
    );
    await fx.deleteDocs(
      index,
      Array.from({ length: 60 }, (_, k) => `d${k * 7}`),
    );
    await fx.putDocs(
      index,
      docs(440, 600, (i) => ({ body: body(i, 2) })),
    );
    await fx.deleteDocs(index, ['d449', 'd450', 'd599']);
    const check = await recount(index);
    expect(check).toMatchObject({ wrong: 0, orphans: 0 });
    expect(check.checked).toBeGreaterThan(5);
    const red = await blocksOf(index, 'red');
    const { rows } = await fx.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM documents WHERE index_id = $1',
      [index.indexId],
    );
    expect(decode(red).size).toBe(Number(rows[0]!.n)); // every document has "red"
    expect(red.length).toBeGreaterThan(3);
    expect(red.every((b) => b.offsets.length <= 128 && b.offsets.length > 0)).toBe(true);
  });

  it("merges a batch whose doc keys fall before a term's last key into its blocks (seam callers only)", async () => {
    const index = await fx.createIndex(mappings);
    const writer = createIndexWriter();
    const add = async (keys: number[]) => {
      const client = await fx.pool.connect();
      try {
        await client.query('BEGIN');
        await writer.add(
          client,
          index,
          keys.map((k) => ({ docKey: String(k), source: { body: k % 2 === 0 ? 'kappa' : 'kappa kappa' } })),
        );
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    await add(Array.from({ length: 200 }, (_, i) => 10 * (i + 1)));
    await add([15, 995, 2005]);
    const blocks = await blocksOf(index, 'kappa');
    expect(blocks.map((b) => b.offsets.length)).toEqual([128, 75]);
    const keys = [...decode(blocks).keys()];
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    expect(keys.slice(0, 3)).toEqual([10, 15, 20]);
    expect(decode(blocks).get(995)).toEqual([2, 2]);
    expect(keys.at(-1)).toBe(2005);
    const { rows } = await fx.pool.query(
      `SELECT doc_freq, total_term_freq::int AS ttf FROM terms WHERE index_id = $1 AND term = 'kappa'`,
      [index.indexId],
    );
    expect(rows).toEqual([{ doc_freq: 203, ttf: 200 + 3 * 2 }]);
  });
});
