import type { Socket } from 'node:net';
import { Pool, type PoolClient } from 'pg';
import { createTestDatabase } from '@acme/testkit';
import { queueStreamedBinaryCopy, type BinaryCopy } from '../../src/storage/copy-binary';
import { StatementQueue } from '../../src/storage/statement-queue';

/** Bytes node-pg handed to the client's socket so far (what Postgres can have received). */
const bytesWritten = (client: PoolClient) =>
  (client as unknown as { connection: { stream: Socket } }).connection.stream.bytesWritten;

/** A row of ~250 bytes: a key and a 30-element int8[]. */
const writeRow = (copy: BinaryCopy, k: number) =>
  copy
    .row(2)
    .int8(k)
    .int8Array(30, (e) => k * 100 + e);

describe('binary COPY streamed through a statement queue (queueStreamedBinaryCopy)', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = new Pool({ connectionString: await createTestDatabase('copy_binary_streamed'), max: 2 });
    await pool.query('CREATE TABLE rows_in (k int8 PRIMARY KEY, a int8[])');
    await pool.query('CREATE TABLE marks (n int4, at timestamptz DEFAULT clock_timestamp())');
  });
  afterAll(async () => {
    await pool.end();
  });
  afterEach(async () => {
    await pool.query('TRUNCATE rows_in, marks');
  });

  /** Runs `body` in a transaction that is rolled back, then checks the client still answers. */
  async function inRolledBackTransaction(body: (client: PoolClient) => Promise<void>): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      try {
        await body(client);
      } finally {
        await client.query('ROLLBACK');
      }
      // The connection is usable after the failed COPY and the ROLLBACK.
      const { rows } = await client.query<{ one: number }>('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
  }

  it('sends rows while the rest are rendered, in queue order, and stores every row', async () => {
    const total = 12_000; // ~3 MB: a dozen chunks
    const client = await pool.connect();
    let sentBeforeLastRow = 0;
    try {
      await client.query('BEGIN');
      const queue = new StatementQueue();
      const before = queue.add(() => client.query('INSERT INTO marks (n) VALUES (1)'));
      const start = bytesWritten(client);
      const copying = queueStreamedBinaryCopy(
        client,
        'COPY rows_in (k, a) FROM STDIN',
        function* (copy) {
          for (let k = 0; k < total; k++) {
            // Read while the last row is rendered: what was sent before the rendering ended.
            if (k === total - 1) sentBeforeLastRow = bytesWritten(client) - start;
            writeRow(copy, k);
            yield;
          }
        },
        { queue },
      );
      // Queued after the COPY: runs once the COPY ended, and sees its rows.
      const after = queue.add(() =>
        client.query<{ n: number }>('INSERT INTO marks (n) SELECT count(*) FROM rows_in RETURNING n'),
      );
      await Promise.all([before, copying, after]);
      await client.query('COMMIT');
      expect((await after).rows).toEqual([{ n: total }]);
    } finally {
      client.release();
    }
    // More than a megabyte was on its way to Postgres before the last row was rendered.
    expect(sentBeforeLastRow).toBeGreaterThan(1_000_000);
    const { rows } = await pool.query<{ n: string; sum: string; a: string[] }>(
      'SELECT count(*) AS n, sum(k) AS sum, (SELECT a FROM rows_in WHERE k = 7777) AS a FROM rows_in',
    );
    expect(rows[0]).toEqual({
      n: String(total),
      sum: String((total * (total - 1)) / 2),
      a: Array.from({ length: 30 }, (_, e) => String(777_700 + e)),
    });
    const { rows: marks } = await pool.query('SELECT n FROM marks ORDER BY at');
    expect(marks).toEqual([{ n: 1 }, { n: total }]);
  });

  it('stops rendering and sends nothing more once Postgres refuses the COPY midway', async () => {
    // 200,000 rows (~50 MB) would take far longer to render than Postgres takes to find the
    // duplicate key in the first chunk.
    const total = 200_000;
    let rendered = 0;
    await inRolledBackTransaction(async (client) => {
      await expect(
        queueStreamedBinaryCopy(client, 'COPY rows_in (k, a) FROM STDIN', function* (copy) {
          for (let k = 0; k < total; k++) {
            writeRow(copy, k === 2 ? 1 : k);
            rendered++;
            yield;
          }
        }),
      ).rejects.toThrow(/duplicate key/);
      // Settled: no more rows are rendered, so none can be sent after the caller's ROLLBACK.
      const settled = rendered;
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(rendered).toBe(settled);
    });
    expect(rendered).toBeLessThan(total / 2);
    expect((await pool.query('SELECT count(*)::int AS n FROM rows_in')).rows).toEqual([{ n: 0 }]);
  });

  it('never sends the COPY when a statement queued before it failed', async () => {
    let rendered = 0;
    await inRolledBackTransaction(async (client) => {
      const queue = new StatementQueue();
      const failing = queue.add(() => client.query('SELECT 1 / 0'));
      failing.catch(() => undefined);
      await expect(
        queueStreamedBinaryCopy(
          client,
          'COPY rows_in (k, a) FROM STDIN',
          function* (copy) {
            for (let k = 0; k < 200_000; k++) {
              writeRow(copy, k);
              rendered++;
              yield;
            }
          },
          { queue },
        ),
      ).rejects.toThrow(/division by zero/);
    });
    expect(rendered).toBeLessThan(100_000);
    expect((await pool.query('SELECT count(*)::int AS n FROM rows_in')).rows).toEqual([{ n: 0 }]);
  });

  it('cancels a COPY under way when the rendering throws, and leaves nothing', async () => {
    await inRolledBackTransaction(async (client) => {
      await expect(
        queueStreamedBinaryCopy(client, 'COPY rows_in (k, a) FROM STDIN', function* (copy) {
          for (let k = 0; k < 8_000; k++) {
            writeRow(copy, k);
            yield;
          }
          throw new Error('rendering failed');
        }),
      ).rejects.toThrow('rendering failed');
    });
    // Outside the transaction too: the rows sent before the failure were never committed.
    await pool.query('INSERT INTO rows_in (k) VALUES (1)');
    expect((await pool.query('SELECT count(*)::int AS n FROM rows_in')).rows).toEqual([{ n: 1 }]);
  });
});
