import type { PoolClient } from 'pg';
import { createIndexFixture, type IndexFixture } from './support/index-fixture';
import { createIndexWriter, type IndexContext, type IndexWriter } from '../../src/index/index-writer';
import { seededRandom } from '../support/seeded-random';
import { postingsById } from './support/postings-by-id';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

const mappings = {
  properties: {
    body: { type: 'text' as const },
    tag: { type: 'keyword' as const },
    n: { type: 'integer' as const },
  },
};

/**
 * `count` documents over a small vocabulary (terms recur across parts, some in more than 128
 * documents: full blocks) plus words only one stretch of the batch uses (terms new in a later part).
 */
function documents(count: number, seed: number, prefix: string): Record<string, Record<string, unknown>> {
  const random = seededRandom(seed);
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
  const docs: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: 3 + Math.floor(random() * 8) }, () => words[Math.floor(random() * 8)]!);
    body.push(`${prefix}w${Math.floor(i / 40)}`);
    docs[`${prefix}${i}`] = { body: body.join(' '), tag: `t${i % 5}`, n: i };
  }
  return docs;
}

/** Writes the rows and the index through addAlongside, the rows' INSERT queued behind the writer's claim. */
async function addAlongside(
  writer: IndexWriter,
  index: IndexContext,
  docs: Record<string, Record<string, unknown>>,
): Promise<void> {
  const client = await fx.pool.connect();
  try {
    await client.query('BEGIN');
    await write(client, writer, index, docs);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

async function write(
  client: PoolClient,
  writer: IndexWriter,
  index: IndexContext,
  docs: Record<string, Record<string, unknown>>,
): Promise<void> {
  const ids = Object.keys(docs);
  const { rows } = await client.query<{ k: string }>(
    "SELECT nextval('doc_key_seq') AS k FROM generate_series(1, $1) ORDER BY 1",
    [ids.length],
  );
  const keys = rows.map((r) => r.k);
  await writer.addAlongside!(
    client,
    index,
    ids.map((id, i) => ({ docKey: keys[i]!, source: docs[id]! })),
    (queue) =>
      queue.add(async () => {
        await client.query(
          `INSERT INTO documents (index_id, doc_key, id, source, version, seq_no)
           SELECT $1, k, id, source, 1, 0 FROM unnest($2::bigint[], $3::text[], $4::jsonb[]) AS u(k, id, source)`,
          [index.indexId, keys, ids, ids.map((id) => JSON.stringify(docs[id]))],
        );
      }),
  );
}

/** Everything the writer stores, by document id instead of doc key (the two indices' keys differ). */
async function stored(index: IndexContext): Promise<Record<string, unknown>> {
  const q = async (sql: string) => (await fx.pool.query(sql, [index.indexId])).rows;
  return {
    postings: await postingsById(fx.pool, index.indexId),
    terms: await q(
      `SELECT f.path, t.term, t.doc_freq, t.total_term_freq FROM terms t JOIN fields f USING (index_id, field_id)
       WHERE t.index_id = $1 ORDER BY f.path, t.term`,
    ),
    // One segment per batch: a term met in several parts has one run of blocks, as in one piece.
    blocks: await q(
      `SELECT f.path, t.term, octet_length(b.norms) AS size, b.small_run, b.term_doc_freq, b.term_total_freq
       FROM posting_blocks b JOIN term_dictionary t USING (index_id, term_id) JOIN fields f USING (index_id, field_id)
       WHERE b.index_id = $1 ORDER BY f.path, t.term, b.base_doc_key`,
    ),
    fieldStats: await q(
      `SELECT f.path, s.doc_count, s.sum_total_term_freq FROM field_stats s JOIN fields f USING (index_id, field_id)
       WHERE s.index_id = $1 ORDER BY f.path`,
    ),
    tokens: await q(
      `SELECT d.id, f.path, k.length, cardinality(k.term_ids) AS positions FROM doc_tokens k
       JOIN fields f USING (index_id, field_id) JOIN documents d ON d.index_id = k.index_id AND d.doc_key = k.doc_key
       WHERE k.index_id = $1 ORDER BY d.id, f.path`,
    ),
    docValues: await q(
      `SELECT d.id, f.path, v.num, v.kw FROM doc_values v JOIN fields f USING (index_id, field_id)
       JOIN documents d ON d.index_id = v.index_id AND d.doc_key = v.doc_key
       WHERE v.index_id = $1 ORDER BY d.id, f.path, v.num, v.kw`,
    ),
    // Chunks split at doc keys, which differ between the indices: the values each field holds.
    columns: await q(
      `SELECT f.path, sum(c.num_count)::int AS nums, sum(c.kw_count)::int AS kws FROM doc_value_columns c
       JOIN fields f USING (index_id, field_id) WHERE c.index_id = $1 GROUP BY f.path ORDER BY f.path`,
    ),
  };
}

describe('addAlongside: a batch analysed and written in parts', () => {
  const first = documents(300, 1, 'a');
  const second = documents(170, 2, 'b');

  it.each([
    ['with the term dictionary cache', 2 ** 20],
    ['without it', 0],
  ])('writes exactly what add writes in one piece, batch after batch (%s)', async (_, termCacheBytes) => {
    const whole = await fx.createIndex(mappings);
    await fx.putDocs(whole, first);
    await fx.putDocs(whole, second);
    const parted = await fx.createIndex(mappings);
    const writer = createIndexWriter({ termCacheBytes, partDocs: 7 });
    await addAlongside(writer, parted, first);
    // The second batch: its terms are known (cache hits and tails, or the dictionary's) and new ones.
    await addAlongside(writer, parted, second);
    const expected = await stored(whole);
    // Terms with full blocks of 128 and runs of smaller last ones, batch after batch.
    expect(expected.blocks).toContainEqual(expect.objectContaining({ size: 128, small_run: 0 }));
    expect(expected.blocks).toContainEqual(expect.objectContaining({ small_run: 2 }));
    expect(await stored(parted)).toEqual(expected);
  });

  it('rejects with a later part failing, leaves nothing written and nothing unhandled, and the index takes the batch again', async () => {
    const index = await fx.createIndex(mappings);
    // Only the last parts of the batch meet this word: the first parts' statements have run by then.
    await fx.pool.query(
      `CREATE FUNCTION refuse_late_term() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN RAISE EXCEPTION 'late term refused'; END $$;
       CREATE TRIGGER refuse_late_term BEFORE INSERT ON term_dictionary FOR EACH ROW
         WHEN (NEW.index_id = ${Number(index.indexId)} AND NEW.term = 'aw7') EXECUTE FUNCTION refuse_late_term();`,
    );
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const writer = createIndexWriter({ partDocs: 7 });
    try {
      await expect(addAlongside(writer, index, first)).rejects.toThrow('late term refused');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await fx.pool.query(
        'DROP TRIGGER refuse_late_term ON term_dictionary; DROP FUNCTION refuse_late_term()',
      );
    }
    const { rows } = await fx.pool.query(
      `SELECT (SELECT count(*) FROM documents WHERE index_id = $1)::int AS d,
              (SELECT count(*) FROM posting_blocks WHERE index_id = $1)::int AS b,
              (SELECT count(*) FROM term_dictionary WHERE index_id = $1)::int AS t,
              (SELECT count(*) FROM doc_tokens WHERE index_id = $1)::int AS k,
              (SELECT count(*) FROM field_stats WHERE index_id = $1)::int AS s`,
      [index.indexId],
    );
    expect(rows[0]).toEqual({ d: 0, b: 0, t: 0, k: 0, s: 0 });
    // The same writer (its cache dropped) takes the batch now, and stores what one piece would.
    await addAlongside(writer, index, first);
    const whole = await fx.createIndex(mappings);
    await fx.putDocs(whole, first);
    expect(await stored(index)).toEqual(await stored(whole));
  });

  it("sends a part's doc values and token streams while Node analyses the next part", async () => {
    const index = await fx.createIndex(mappings);
    const docs = documents(20, 3, 'c');
    const ids = Object.keys(docs);
    const texts = ids.map((id) => JSON.stringify(docs[id]));
    /** Statements sent on the writer's client and the analysis of the second part, in order. */
    const log: string[] = [];
    // The second part's documents take ~20 ms each to read: long enough for Postgres to answer the
    // first part's statements, so that its streams can go before the last document is analysed.
    for (const id of ids.slice(10)) {
      const body = docs[id]!.body;
      Object.defineProperty(docs[id], 'body', {
        enumerable: true,
        get() {
          log.push(`analyse ${id}`);
          const until = Date.now() + 20;
          while (Date.now() < until);
          return body;
        },
      });
    }
    const client = await fx.pool.connect();
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, ...rest) => {
      const text = typeof config === 'string' ? config : (config as { text?: string }).text;
      log.push(String(text).split(' (')[0]!);
      return query(config, ...rest);
    };
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ k: string }>(
        "SELECT nextval('doc_key_seq') AS k FROM generate_series(1, $1) ORDER BY 1",
        [ids.length],
      );
      const keys = rows.map((r) => r.k);
      await createIndexWriter({ partDocs: 10 }).addAlongside!(
        client,
        index,
        ids.map((id, i) => ({ docKey: keys[i]!, source: docs[id]! })),
        (queue) =>
          queue.add(async () => {
            await client.query(
              `INSERT INTO documents (index_id, doc_key, id, source, version, seq_no)
               SELECT $1, k, id, source, 1, 0 FROM unnest($2::bigint[], $3::text[], $4::jsonb[]) AS u(k, id, source)`,
              [index.indexId, keys, ids, texts],
            );
          }),
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const lastAnalysed = log.lastIndexOf(`analyse ${ids[ids.length - 1]}`);
    // Two parts: the first part's doc values and streams went before the second part was analysed
    // (before: only once it was, the doc values of both after the last part).
    expect(log.indexOf('COPY doc_values')).toBeGreaterThan(-1);
    expect(log.indexOf('COPY doc_values')).toBeLessThan(lastAnalysed);
    expect(log.indexOf('COPY doc_tokens')).toBeLessThan(lastAnalysed);
    expect(log.filter((s) => s === 'COPY doc_values')).toHaveLength(2);
    expect(log.filter((s) => s === 'COPY doc_tokens')).toHaveLength(2);
    // And the batch is stored as one piece stores it.
    const whole = await fx.createIndex(mappings);
    await fx.putDocs(whole, documents(20, 3, 'c'));
    expect(await stored(index)).toEqual(await stored(whole));
  });
});
