import type { PoolClient } from 'pg';
import { createIndexFixture, type IndexFixture } from './support/index-fixture';
import { packedWidth, unpackBlock } from '../../src/index/build-blocks';
import { queueBinaryCopy } from '../../src/storage/copy-binary';
import { readPackedHex } from '../../src/search/fast-match/parse-pg-int-array';

/**
 * The packed columns of posting blocks (migration 0030) read and written by each of their readers and
 * writers: BinaryCopy.packed (the writer), posting_bytes (delete's rewrite in SQL), posting_int and
 * block_position (the view and the probes), unpackBlock (merges) and readPackedHex (the fast path).
 */
let fx: IndexFixture;
let client: PoolClient;
beforeAll(async () => {
  fx = await createIndexFixture();
  client = await fx.pool.connect();
  await client.query('CREATE TEMP TABLE packed (k int PRIMARY KEY, width int, bytes bytea)');
});
afterAll(async () => {
  client.release();
  await fx.end();
});

/** Ascending, distinct values whose largest needs each width, with the edges of every width. */
const lists: number[][] = [
  [0, 1, 200, 255],
  [0, 255, 256, 65535],
  [0, 65536, 70000, 16777215],
  [0, 16777216, 2000000000, 2147483647],
  [7],
];

async function write(rows: { k: number; values: number[] }[]): Promise<void> {
  await client.query('TRUNCATE packed');
  await queueBinaryCopy(client, 'COPY packed (k, width, bytes) FROM STDIN', function* (copy) {
    for (const { k, values } of rows) {
      const width = packedWidth(values[values.length - 1]!);
      copy
        .row(3)
        .int4(k)
        .int4(width)
        .packed(values.length, width, (i) => values[i]!);
      yield;
    }
  });
}

describe('packed posting columns', () => {
  it('reads back the same values in SQL, from node-pg Buffers and from the hex text, at every width', async () => {
    await write(lists.map((values, k) => ({ k, values })));
    const { rows } = await client.query<{
      k: number;
      width: number;
      bytes: Buffer;
      hex: string;
      in_sql: number[];
      repacked: boolean;
    }>(
      `SELECT k, width, bytes, encode(bytes, 'hex') AS hex,
              ARRAY(SELECT posting_int(bytes, width, i) FROM unnest(block_subscripts(octet_length(bytes) / width)) AS i) AS in_sql,
              posting_bytes(ARRAY(SELECT posting_int(bytes, width, i) FROM unnest(block_subscripts(octet_length(bytes) / width)) AS i)) = bytes AS repacked
       FROM packed ORDER BY k`,
    );
    expect(rows.map((r) => r.width)).toEqual([1, 2, 3, 4, 1]);
    rows.forEach((r, k) => {
      const values = lists[k]!;
      expect(r.bytes.length).toBe(values.length * r.width);
      expect(r.in_sql).toEqual(values);
      // Delete's SQL rewrite packs exactly as the writer does.
      expect(r.repacked).toBe(true);
      // A merge reads the Buffer node-pg returns; a norms column of the same count gives the size.
      expect(
        unpackBlock(r.bytes, r.bytes.subarray(0, values.length), new Uint8Array(values.length)).offsets,
      ).toEqual(values);
      const out = new Float64Array(values.length);
      expect(readPackedHex(`\\x${r.hex}`, values.length, out, 0, 10)).toBe(values.length);
      expect([...out]).toEqual(values.map((v) => v + 10));
    });
  });

  it('finds an offset by its bytes, and not where they straddle two offsets', async () => {
    await write([
      ...lists.map((values, k) => ({ k, values })),
      // Width 2: 0x0002 0x0100 0x0201 holds the bytes 02 01 first across offsets 0 and 1.
      { k: 10, values: [0x0002, 0x0100, 0x0201] },
      // 0x0203 occurs only across offsets 1 and 2 (01 02 | 03 04).
      { k: 11, values: [0x0000, 0x0102, 0x0304] },
    ]);
    const position = async (k: number, target: number) =>
      (
        await client.query<{ i: number | null }>(
          'SELECT block_position(bytes, width, $2) AS i FROM packed WHERE k = $1',
          [k, target],
        )
      ).rows[0]!.i;
    for (const [k, values] of lists.entries())
      for (const [i, value] of values.entries()) expect(await position(k, value)).toBe(i);
    expect(await position(0, 2)).toBeNull();
    expect(await position(1, 257)).toBeNull();
    expect(await position(3, 16777217)).toBeNull();
    expect(await position(10, 0x0201)).toBe(2);
    expect(await position(10, 0x0100)).toBe(1);
    expect(await position(11, 0x0203)).toBeNull();
    expect(await position(11, 0x0304)).toBe(2);
  });
});
