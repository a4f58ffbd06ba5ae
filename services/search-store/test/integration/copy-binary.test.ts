import { Pool } from 'pg';
import { createTestDatabase } from '@acme/testkit';
import {
  getInt64,
  int2ArrayParam,
  int4ArrayParam,
  int8ArrayParam,
  textArrayParam,
} from '../../src/storage/binary-params';
import { queueBinaryCopy, streamBinaryCopy } from '../../src/storage/copy-binary';

describe('binary COPY (storage/copy-binary.ts)', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = new Pool({ connectionString: await createTestDatabase('copy_binary'), max: 2 });
    await pool.query(
      'CREATE TABLE numbers (k int8, i int4, s int2, ks int8[], is4 int4[], ss int2[], PRIMARY KEY (k))',
    );
  });
  afterAll(async () => {
    await pool.end();
  });

  it('writes integers and integer arrays that Postgres reads back exactly, across chunks', async () => {
    // Edge values of each type, negatives, 2^53 - 1, empty arrays, and enough elements (~1.2 MB) that
    // the rows cross several 256 kB chunks.
    const rows = [
      {
        k: Number.MAX_SAFE_INTEGER,
        i: 2147483647,
        s: 32767,
        ks: [-1, 0, 2 ** 40 + 7],
        is4: [-2147483648],
        ss: [-32768],
      },
      { k: -Number.MAX_SAFE_INTEGER, i: -2147483648, s: -32768, ks: [], is4: [], ss: [] },
      { k: 0, i: 0, s: 0, ks: [4294967296, 4294967295], is4: [1, 2, 3], ss: [255] },
      ...Array.from({ length: 40 }, (_, r) => ({
        k: 1_000_000 + r,
        i: r,
        s: r,
        ks: Array.from({ length: 2_500 }, (_, e) => r * 1e6 + e),
        is4: Array.from({ length: 100 }, (_, e) => 1 - e),
        ss: Array.from({ length: 100 }, (_, e) => e % 256),
      })),
    ];
    const client = await pool.connect();
    try {
      await queueBinaryCopy(client, 'COPY numbers (k, i, s, ks, is4, ss) FROM STDIN', function* (copy) {
        for (const r of rows) {
          copy
            .row(6)
            .int8(r.k)
            .int4(r.i)
            .int2(r.s)
            .int8Array(r.ks.length, (e) => r.ks[e]!)
            .int4Array(r.is4.length, (e) => r.is4[e]!)
            .int2Array(r.ss.length, (e) => r.ss[e]!);
          yield;
        }
      });
    } finally {
      client.release();
    }
    const { rows: stored } = await pool.query<{
      k: string;
      i: number;
      s: number;
      ks: string[];
      is4: number[];
      ss: number[];
    }>('SELECT k, i, s, ks, is4, ss FROM numbers');
    const byKey = new Map(stored.map((r) => [r.k, r]));
    expect(stored).toHaveLength(rows.length);
    for (const r of rows) {
      expect(byKey.get(String(r.k))).toEqual({
        k: String(r.k),
        i: r.i,
        s: r.s,
        ks: r.ks.map(String),
        is4: r.is4,
        ss: r.ss,
      });
    }
  });

  it('leaves nothing written when the COPY fails (a duplicate key mid-stream)', async () => {
    const client = await pool.connect();
    try {
      await expect(
        queueBinaryCopy(client, 'COPY numbers (k, i, s, ks, is4, ss) FROM STDIN', function* (copy) {
          for (const k of [5, 6, 5]) {
            copy
              .row(6)
              .int8(k)
              .int4(0)
              .int2(0)
              .int8Array(0, () => 0)
              .int4Array(0, () => 0)
              .int2Array(0, () => 0);
            yield;
          }
        }),
      ).rejects.toThrow(/duplicate key/);
    } finally {
      client.release();
    }
    const { rows } = await pool.query('SELECT k FROM numbers WHERE k IN (5, 6)');
    expect(rows).toEqual([]);
  });

  it('streams text and json values exactly, multi-byte characters and chunk boundaries included', async () => {
    await pool.query('CREATE TABLE texts (k int8 PRIMARY KEY, t text, j json)');
    // ~2 MB of rows: several 256 kB chunks, each written while the next is rendered; one value is
    // bigger than a chunk.
    const texts = [
      '',
      'tab\there\nnew line\\ and \\N',
      'ünïcødé 日本 \u{1F600}',
      'x'.repeat(600_000),
      ...Array.from({ length: 1_500 }, (_, i) => `row ${i} ${'é'.repeat(i % 700)}`),
    ];
    // Spacing kept, escapes kept as written (json stores the text itself).
    const json = (i: number) =>
      `{ "i" : ${i},\t"s": ${JSON.stringify(`back\\slash "q" ${texts[i]!.slice(0, 20)}`)}, "u": "\\u00e9" }`;
    const client = await pool.connect();
    try {
      await streamBinaryCopy(client, 'COPY texts (k, t, j) FROM STDIN', function* (copy) {
        for (const [i, t] of texts.entries()) {
          copy.row(3).int8(i).text(t).text(json(i));
          yield;
        }
      });
    } finally {
      client.release();
    }
    const { rows } = await pool.query<{ k: string; t: string; j: string }>(
      'SELECT k, t, j::text AS j FROM texts ORDER BY k',
    );
    expect(rows).toHaveLength(texts.length);
    for (const [i, t] of texts.entries()) expect(rows[i]).toEqual({ k: String(i), t, j: json(i) });
  });

  it('sends array parameters in binary that Postgres reads as the cast type', async () => {
    const terms = [
      'plain',
      'with "quotes"',
      'back\\slash',
      'comma,brace}{',
      'NULL',
      '',
      'ünïcødé 日本',
      '😀',
    ];
    const { rows } = await pool.query<{ k: string[]; i: number[]; s: number[]; t: string[]; e: number[] }>(
      'SELECT $1::int8[] AS k, $2::int4[] AS i, $3::int2[] AS s, $4::text[] AS t, $5::int4[] AS e',
      [
        int8ArrayParam([0, -1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 32]),
        int4ArrayParam([2147483647, -2147483648, 0]),
        int2ArrayParam([32767, -32768]),
        textArrayParam(terms),
        int4ArrayParam([]),
      ],
    );
    expect(rows[0]).toEqual({
      k: ['0', '-1', String(Number.MAX_SAFE_INTEGER), String(-Number.MAX_SAFE_INTEGER), String(2 ** 32)],
      i: [2147483647, -2147483648, 0],
      s: [32767, -32768],
      t: terms,
      e: [],
    });
    // array_recv checks the element type: an int4 array is not taken for an int8[] parameter.
    await expect(pool.query('SELECT $1::int8[]', [int4ArrayParam([1])])).rejects.toThrow(
      /element type 23 .* instead of expected 20/,
    );
  });

  it('reads int8send bytes back as the number Postgres sent (getInt64)', async () => {
    const values = [0, -1, 1, 2 ** 32, -(2 ** 32) - 1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    const { rows } = await pool.query<{ b: Buffer }>(
      "SELECT string_agg(int8send(v), ''::bytea ORDER BY n) AS b FROM unnest($1::int8[]) WITH ORDINALITY AS u(v, n)",
      [values.map(String)],
    );
    const bytes = rows[0]!.b;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(values.map((_, i) => getInt64(view, i * 8))).toEqual(values);
  });
});
