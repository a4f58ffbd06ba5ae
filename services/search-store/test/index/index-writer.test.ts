import { createIndexFixture, type IndexFixture } from './support/index-fixture';
import type { IndexContext } from '../../src/index/index-writer';
import { intToByte4 } from '../../src/index/small-float';
import { createIndexWriter } from '../../src/index/index-writer';
import { postingsById } from './support/postings-by-id';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

const mappings = {
  properties: {
    title: { type: 'text' as const, fields: { keyword: { type: 'keyword' as const, ignore_above: 12 } } },
    tags: { type: 'keyword' as const },
    views: { type: 'integer' as const },
    at: { type: 'date' as const },
    draft: { type: 'boolean' as const },
    author: { properties: { name: { type: 'keyword' as const } } },
  },
};

async function termStats(index: IndexContext): Promise<Record<string, [number, number]>> {
  const { rows } = await fx.pool.query<{
    path: string;
    term: string;
    doc_freq: number;
    total_term_freq: string;
  }>(
    `SELECT f.path, t.term, t.doc_freq, t.total_term_freq FROM terms t JOIN fields f USING (index_id, field_id)
     WHERE t.index_id = $1 ORDER BY f.path, t.term`,
    [index.indexId],
  );
  return Object.fromEntries(
    rows.map((r) => [`${r.path}:${r.term}`, [r.doc_freq, Number(r.total_term_freq)]]),
  );
}

async function fieldStats(index: IndexContext): Promise<Record<string, [number, number]>> {
  const { rows } = await fx.pool.query<{ path: string; doc_count: string; sum_total_term_freq: string }>(
    `SELECT f.path, s.doc_count, s.sum_total_term_freq FROM field_stats s JOIN fields f USING (index_id, field_id)
     WHERE s.index_id = $1 ORDER BY f.path`,
    [index.indexId],
  );
  return Object.fromEntries(rows.map((r) => [r.path, [Number(r.doc_count), Number(r.sum_total_term_freq)]]));
}

describe('index writer', () => {
  it('writes postings with freq, positions and the one-byte norm, and exact term and field statistics', async () => {
    const index = await fx.createIndex(mappings);
    const keys = await fx.putDocs(index, {
      a: { title: 'The quick fox, the end', tags: ['x', 'y', 'x'], views: 7, at: '2024-01-02', draft: true },
      b: { title: 'A very long title indeed', author: { name: 'Ann' } },
    });
    const { rows } = await fx.pool.query(
      `SELECT p.freq, p.norm, p.positions FROM postings p JOIN terms t USING (index_id, term_id)
       WHERE p.index_id = $1 AND p.doc_key = $2 AND t.term = 'the'`,
      [index.indexId, keys.a],
    );
    expect(rows).toEqual([{ freq: 2, norm: 5, positions: [0, 3] }]);
    expect(await termStats(index)).toMatchObject({
      'title:the': [1, 2],
      'title:fox': [1, 1],
      'title:title': [1, 1],
      'tags:x': [1, 1],
      'tags:y': [1, 1],
      'author.name:Ann': [1, 1],
    });
    expect(await termStats(index)).not.toHaveProperty(['title.keyword:The quick fox, the end']);
    expect(await fieldStats(index)).toEqual({
      title: [2, 10],
      tags: [1, 2],
      views: [1, 1],
      at: [1, 1],
      draft: [1, 1],
      'author.name': [1, 1],
    });
  });

  it('stores doc values: keywords deduplicated, dates as epoch ms, booleans as 1/0', async () => {
    const index = await fx.createIndex(mappings);
    const keys = await fx.putDocs(index, {
      a: { title: 'short', tags: ['x', 'y', 'x'], views: '12.9', at: '2024-01-02T03:04:05Z', draft: 'false' },
    });
    const { rows } = await fx.pool.query(
      `SELECT f.path, v.num, v.kw FROM doc_values v JOIN fields f USING (index_id, field_id)
       WHERE v.index_id = $1 AND v.doc_key = $2 ORDER BY f.path, v.kw`,
      [index.indexId, keys.a],
    );
    expect(rows).toEqual([
      { path: 'at', num: Date.UTC(2024, 0, 2, 3, 4, 5), kw: null },
      { path: 'draft', num: 0, kw: null },
      { path: 'tags', num: null, kw: 'x' },
      { path: 'tags', num: null, kw: 'y' },
      { path: 'title.keyword', num: null, kw: 'short' },
      { path: 'views', num: 12, kw: null },
    ]);
  });

  it('keeps every statistic exact after replace and delete, and drops unused terms', async () => {
    const index = await fx.createIndex(mappings);
    await fx.putDocs(index, { a: { title: 'red fox' }, b: { title: 'red red dog' } });
    await fx.putDocs(index, { a: { title: 'blue fox jumps' } });
    expect(await termStats(index)).toEqual({
      'title:blue': [1, 1],
      'title:dog': [1, 1],
      'title:fox': [1, 1],
      'title:jumps': [1, 1],
      'title:red': [1, 2],
      'title.keyword:red red dog': [1, 1],
    });
    expect((await fieldStats(index)).title).toEqual([2, 6]);
    await fx.deleteDocs(index, ['b']);
    expect(await termStats(index)).toEqual({
      'title:blue': [1, 1],
      'title:fox': [1, 1],
      'title:jumps': [1, 1],
    });
    expect(await fieldStats(index)).toEqual({ title: [1, 3], 'title.keyword': [0, 0] });
    const { rows } = await fx.pool.query('SELECT count(*)::int AS n FROM postings WHERE index_id = $1', [
      index.indexId,
    ]);
    expect(rows[0].n).toBe(3);
  });

  it('encodes long fields lossily as Lucene does', async () => {
    const index = await fx.createIndex(mappings);
    const keys = await fx.putDocs(index, {
      a: { title: Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ') },
    });
    const { rows } = await fx.pool.query(
      'SELECT DISTINCT norm FROM postings WHERE index_id = $1 AND doc_key = $2',
      [index.indexId, keys.a],
    );
    expect(rows).toEqual([{ norm: intToByte4(100) }]);
    expect(intToByte4(100)).toBe(intToByte4(96));
  });

  it('leaves nothing half-written when the transaction fails', async () => {
    const index = await fx.createIndex(mappings);
    const client = await fx.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ doc_key: string }>(
        `INSERT INTO documents (index_id, id, source, version, seq_no) VALUES ($1, 'a', '{}', 1, 0) RETURNING doc_key`,
        [index.indexId],
      );
      await createIndexWriter().add(client, index, [
        { docKey: rows[0]!.doc_key, source: { title: 'lost words' } },
      ]);
      await expect(client.query('SELECT 1/0')).rejects.toThrow('division by zero');
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    const counts = await fx.pool.query(
      `SELECT (SELECT count(*) FROM postings WHERE index_id = $1)::int AS p, (SELECT count(*) FROM terms WHERE index_id = $1)::int AS t,
              (SELECT count(*) FROM field_stats WHERE index_id = $1)::int AS s`,
      [index.indexId],
    );
    expect(counts.rows[0]).toEqual({ p: 0, t: 0, s: 0 });
  });

  it('rejects with the first error of a statement queued mid-batch, unhandled by nothing, and leaves nothing written', async () => {
    const index = await fx.createIndex(mappings);
    // The dictionary statement fails; the rows queued behind it (field lengths, doc values) are never sent.
    await fx.pool.query(
      `CREATE FUNCTION refuse_terms() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN RAISE EXCEPTION 'terms refused'; END $$;
       CREATE TRIGGER refuse_terms BEFORE INSERT ON term_dictionary FOR EACH ROW
         WHEN (NEW.index_id = ${Number(index.indexId)}) EXECUTE FUNCTION refuse_terms();`,
    );
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const client = await fx.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ doc_key: string }>(
        `INSERT INTO documents (index_id, id, source, version, seq_no)
         SELECT $1, 'd' || i, '{}', 1, i FROM generate_series(1, 300) i RETURNING doc_key`,
        [index.indexId],
      );
      const documents = rows.map((r, i) => ({
        docKey: r.doc_key,
        source: { title: `refused words ${i}`, tags: ['a', `t${i % 7}`], views: i },
      }));
      await expect(createIndexWriter().add(client, index, documents)).rejects.toThrow('terms refused');
      await client.query('ROLLBACK');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      client.release();
      await fx.pool.query('DROP TRIGGER refuse_terms ON term_dictionary; DROP FUNCTION refuse_terms()');
    }
    const counts = await fx.pool.query(
      `SELECT (SELECT count(*) FROM posting_blocks WHERE index_id = $1)::int AS b, (SELECT count(*) FROM terms WHERE index_id = $1)::int AS t,
              (SELECT count(*) FROM doc_tokens WHERE index_id = $1)::int AS k, (SELECT count(*) FROM field_stats WHERE index_id = $1)::int AS s`,
      [index.indexId],
    );
    expect(counts.rows[0]).toEqual({ b: 0, t: 0, k: 0, s: 0 });
    // The index takes the same documents once the failure is gone.
    const keys = await fx.putDocs(index, { a: { title: 'kept words' } });
    expect(Object.keys(keys)).toEqual(['a']);
    expect(await termStats(index)).toEqual({
      'title.keyword:kept words': [1, 1],
      'title:kept': [1, 1],
      'title:words': [1, 1],
    });
  });

  it('copies an index with the same doc keys and statistics', async () => {
    const from = await fx.createIndex(mappings);
    await fx.putDocs(from, { a: { title: 'copy me', views: 3 } });
    const to = await fx.createIndex(mappings);
    const client = await fx.pool.connect();
    try {
      await createIndexWriter().copyIndex(client, from.indexId, to.indexId);
    } finally {
      client.release();
    }
    expect(await termStats(to)).toEqual(await termStats(from));
    expect(await fieldStats(to)).toEqual(await fieldStats(from));
  });

  it('stores terms with quotes, backslashes, commas and braces exactly as analysed', async () => {
    const index = await fx.createIndex(mappings);
    const odd = ['say "hi"', 'back\\slash', 'a,b', '{x}', 'NULL', ''];
    await fx.putDocs(index, { a: { tags: odd } });
    expect(Object.keys(await termStats(index)).filter((k) => k.startsWith('tags:'))).toEqual(
      [...new Set(odd)].sort().map((t) => `tags:${t}`),
    );
  });

  it('keeps keywords with tabs, newlines and backslashes exact in doc values', async () => {
    const index = await fx.createIndex(mappings);
    const odd = ['tab\there', 'line\nbreak', 'cr\rx', 'back\\slash', '\\N'];
    const keys = await fx.putDocs(index, { a: { tags: odd } });
    const { rows } = await fx.pool.query<{ kw: string }>(
      'SELECT kw FROM doc_values WHERE index_id = $1 AND doc_key = $2 ORDER BY kw COLLATE "C"',
      [index.indexId, keys.a],
    );
    expect(rows.map((r) => r.kw)).toEqual([...odd].sort());
  });

  describe('prepare', () => {
    const docs = {
      a: { title: 'The quick fox', tags: ['x'], views: 1 },
      b: { title: 'the slow fox and the dog', tags: ['y', 'x'] },
    };

    /** Inserts the rows, then adds them with a preparation of `prepareFrom` (the rows' own sources when absent). */
    async function addPrepared(index: IndexContext, prepareFrom?: Record<string, unknown>[]): Promise<void> {
      const writer = createIndexWriter();
      const client = await fx.pool.connect();
      try {
        await client.query('BEGIN');
        const ids = Object.keys(docs);
        const { rows } = await client.query<{ id: string; doc_key: string }>(
          `INSERT INTO documents (index_id, id, source, version, seq_no)
           SELECT $1, id, source, 1, 0 FROM unnest($2::text[], $3::jsonb[]) AS u(id, source) RETURNING id, doc_key`,
          [index.indexId, ids, ids.map((id) => JSON.stringify(docs[id as keyof typeof docs]))],
        );
        const keys = new Map(rows.map((r) => [r.id, r.doc_key]));
        const sources = ids.map((id) => docs[id as keyof typeof docs] as Record<string, unknown>);
        const prepared = await writer.prepare!(index, prepareFrom ?? sources);
        await writer.add(
          client,
          index,
          ids.map((id, i) => ({ docKey: keys.get(id)!, source: sources[i]! })),
          prepared,
        );
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    }

    const postings = (index: IndexContext) => postingsById(fx.pool, index.indexId);

    it('writes from a preparation exactly what add writes without one', async () => {
      const plain = await fx.createIndex(mappings);
      await fx.putDocs(plain, docs);
      const prepared = await fx.createIndex(mappings);
      await addPrepared(prepared);
      expect(await postings(prepared)).toEqual(await postings(plain));
      expect(await termStats(prepared)).toEqual(await termStats(plain));
      expect(await fieldStats(prepared)).toEqual(await fieldStats(plain));
    });

    it('ignores a preparation of other sources and analyses the documents it is given', async () => {
      const plain = await fx.createIndex(mappings);
      await fx.putDocs(plain, docs);
      const stale = await fx.createIndex(mappings);
      await addPrepared(stale, [{ title: 'something else' }, { title: 'entirely' }]);
      expect(await postings(stale)).toEqual(await postings(plain));
      expect(await termStats(stale)).toEqual(await termStats(plain));
    });
  });
});
