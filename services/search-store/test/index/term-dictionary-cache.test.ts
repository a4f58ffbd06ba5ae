import { createIndexFixture, indexHelpers, type IndexFixture } from './support/index-fixture';
import { createIndexWriter, type IndexContext } from '../../src/index/index-writer';
import { TermDictionaryCache, TermDictionaryCaches } from '../../src/index/term-dictionary-cache';
import { postingsById } from './support/postings-by-id';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

const mappings = { properties: { body: { type: 'text' as const }, tag: { type: 'keyword' as const } } };

/**
 * Enough documents per batch that common words fill blocks (128) and rare ones leave partial tails,
 * so that appends extend tails, open new blocks, and a stale tail would show.
 */
function batch(from: number, count: number): Record<string, Record<string, unknown>> {
  const docs: Record<string, Record<string, unknown>> = {};
  for (let i = from; i < from + count; i++)
    docs[`d${i}`] = {
      body: `common word${i % 7} rare${i % 97} the ${i % 3 === 0 ? 'fizz' : 'buzz'} n${i}`,
      tag: `t${i % 5}`,
    };
  return docs;
}

/** Everything the inverted index says, by _id and field path (doc keys and term ids differ between indices). */
async function contents(index: IndexContext): Promise<unknown> {
  const terms = await fx.pool.query(
    `SELECT f.path, t.term, t.doc_freq, t.total_term_freq::int FROM terms t JOIN fields f USING (index_id, field_id)
     WHERE t.index_id = $1 ORDER BY f.path, t.term`,
    [index.indexId],
  );
  const postings = await postingsById(fx.pool, index.indexId);
  // Blocks cover ascending, disjoint doc key ranges per term, each at most 128 postings.
  const overlaps = await fx.pool.query(
    `SELECT count(*)::int AS n FROM (
       SELECT base_doc_key, octet_length(norms) AS size,
              lag(last_doc_key) OVER (PARTITION BY term_id ORDER BY base_doc_key) AS previous_last
       FROM posting_blocks WHERE index_id = $1) b
     WHERE b.previous_last >= b.base_doc_key OR b.size > 128`,
    [index.indexId],
  );
  return { terms: terms.rows, postings, badBlocks: overlaps.rows[0].n };
}

/** The same batches through one writer with no cache: what every other order of writers must equal. */
async function reference(batches: Record<string, Record<string, unknown>>[]): Promise<unknown> {
  const plain = indexHelpers(fx.pool, createIndexWriter({ termCacheBytes: 0 }));
  const index = await plain.createIndex(mappings);
  for (const docs of batches) await plain.putDocs(index, docs);
  return contents(index);
}

describe('term dictionary cache', () => {
  it('keeps slots, ids and tails, and forgets everything on clear', () => {
    const cache = new TermDictionaryCache();
    const slots = Array.from({ length: 3000 }, (_, i) =>
      cache.add(i % 3, `term${i}`, 10_000 + i, {
        baseDocKey: i,
        lastDocKey: i + 5,
        size: i % 128,
        smallRun: i % 9,
        docFreq: i + 1,
        totalTermFreq: 2 * i + 3,
      }),
    );
    expect(cache.size).toBe(3000);
    expect(cache.find(2, 'term2999')).toBe(slots[2999]);
    expect(cache.find(1, 'term2999')).toBe(-1);
    expect(cache.termId(slots[1234]!)).toBe(11_234);
    const moved = { baseDocKey: 70, lastDocKey: 80, size: 9, smallRun: 3, docFreq: 40, totalTermFreq: 41 };
    cache.setTail(slots[7]!, moved);
    expect(cache.tail(slots[7]!)).toEqual(moved);
    expect(cache.tail(slots[2048]!)).toEqual({
      baseDocKey: 2048,
      lastDocKey: 2053,
      size: 0,
      smallRun: 5,
      docFreq: 2049,
      totalTermFreq: 4099,
    });
    cache.token = 'x';
    cache.clear();
    expect([cache.size, cache.bytes, cache.token, cache.find(2, 'term2999')]).toEqual([0, 0, null, -1]);
  });

  it('keeps what it holds and takes no more terms past its limit; the budget is shared by the indices', () => {
    const caches = new TermDictionaryCaches(1000);
    const a = caches.for('1')!;
    const tail = { baseDocKey: 1, lastDocKey: 1, size: 1, smallRun: 1, docFreq: 1, totalTermFreq: 1 };
    const added = Array.from({ length: 20 }, (_, i) => a.add(1, `t${i}`, i, tail));
    const kept = added.filter((slot) => slot !== -1).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(20);
    expect(added.slice(kept).every((slot) => slot === -1)).toBe(true);
    expect(a.find(1, 't0')).toBe(0);
    expect(a.find(1, 't19')).toBe(-1);
    // Another index gets what the first leaves: nothing here.
    const b = caches.for('2')!;
    expect(b.add(1, 'x', 1, tail)).toBe(-1);
    caches.drop('1');
    expect(caches.for('2')!.add(1, 'x', 1, tail)).toBe(0);
  });

  it('a writer that finds another instance wrote since its last batch starts over instead of trusting stale tails', async () => {
    const batches = [batch(0, 300), batch(300, 300), batch(600, 300), batch(900, 300)];
    // Two instances on one database, each with its own cache: A, B, A, A.
    const a = indexHelpers(fx.pool, createIndexWriter());
    const b = indexHelpers(fx.pool, createIndexWriter());
    const index = await a.createIndex(mappings);
    await a.putDocs(index, batches[0]!);
    await b.putDocs(index, batches[1]!);
    await a.putDocs(index, batches[2]!);
    await a.putDocs(index, batches[3]!);
    const written = await contents(index);
    expect(written).toMatchObject({ badBlocks: 0 });
    expect(written).toEqual(await reference(batches));
  });

  it('drops what a rolled-back batch taught it', async () => {
    const writer = createIndexWriter();
    const helpers = indexHelpers(fx.pool, writer);
    const index = await helpers.createIndex(mappings);
    await helpers.putDocs(index, batch(0, 300));
    // A batch written through the cache, then rolled back: its new terms and tails never existed.
    const client = await fx.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ doc_key: string }>(
        `INSERT INTO documents (index_id, id, source, version, seq_no)
         SELECT $1, 'x' || g, '{}', 1, 0 FROM generate_series(1, 300) g RETURNING doc_key`,
        [index.indexId],
      );
      const docs = batch(5000, 300);
      await writer.add(
        client,
        index,
        Object.values(docs).map((source, i) => ({ docKey: rows[i]!.doc_key, source })),
      );
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    await helpers.putDocs(index, batch(300, 300));
    await helpers.putDocs(index, batch(600, 300));
    expect(await contents(index)).toEqual(await reference([batch(0, 300), batch(300, 300), batch(600, 300)]));
  });

  it('writes the same index through a cache over its budget, after a replace and a delete', async () => {
    const helpers = indexHelpers(fx.pool, createIndexWriter({ termCacheBytes: 2000 }));
    const cached = indexHelpers(fx.pool, createIndexWriter());
    const index = await helpers.createIndex(mappings);
    await helpers.putDocs(index, batch(0, 200));
    await helpers.putDocs(index, batch(200, 200));
    await cached.putDocs(index, batch(400, 200));
    // Replace (remove, then add) and delete go through the cache's owner and must leave it consistent.
    await cached.putDocs(index, { d5: { body: 'replaced common', tag: 't9' } });
    await cached.deleteDocs(index, ['d6']);
    await cached.putDocs(index, batch(600, 200));
    const plain = indexHelpers(fx.pool, createIndexWriter({ termCacheBytes: 0 }));
    const expected = await plain.createIndex(mappings);
    for (const docs of [batch(0, 200), batch(200, 200), batch(400, 200)]) await plain.putDocs(expected, docs);
    await plain.putDocs(expected, { d5: { body: 'replaced common', tag: 't9' } });
    await plain.deleteDocs(expected, ['d6']);
    await plain.putDocs(expected, batch(600, 200));
    expect(await contents(index)).toEqual(await contents(expected));
  });
});
