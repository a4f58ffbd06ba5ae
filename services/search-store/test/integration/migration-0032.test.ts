import { Pool } from 'pg';
import { StagedMigrations } from './support/staged-migrations';
import { peakPairs } from '../../src/index/block-peak-pairs';
import { packedWidth } from '../../src/index/build-blocks';
import { seededRandom } from '../support/seeded-random';

/** A block's packed column (migration 0030) as bytea hex: values at the fewest bytes that hold the largest. */
function packedHex(values: number[]): string {
  const width = packedWidth(Math.max(...values));
  return `\\x${values.map((v) => v.toString(16).padStart(2 * width, '0')).join('')}`;
}

describe('migration 0032 (posting_blocks.peaks)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('backfills every block with the bytes peakPairs computes; block_peaks agrees on random blocks', async () => {
    const stages = await StagedMigrations.create('migration_0032');
    cleanup.push(() => stages.remove());
    await stages.runBelow('0032');
    const pool = new Pool({ connectionString: stages.databaseUrl, max: 2 });
    cleanup.push(() => pool.end());

    // Blocks as the writers before 0032 left them: one posting; a dominating posting (empty); a front of
    // three pairs with 2-byte freqs; and random blocks of 1 to 128 postings with 1- to 4-byte freqs.
    const rnd = seededRandom(32);
    const blocks: { freqs: number[]; norms: number[] }[] = [
      { freqs: [3], norms: [9] },
      { freqs: [1, 5, 2], norms: [20, 10, 30] },
      { freqs: [1, 300, 7, 2], norms: [10, 200, 40, 10] },
    ];
    for (let b = 0; b < 200; b++) {
      const size = 1 + Math.floor(rnd() * 128);
      const scale = [4, 300, 70000, 20000000][b % 4]!;
      blocks.push({
        freqs: Array.from({ length: size }, () => 1 + Math.floor(rnd() ** 3 * scale)),
        norms: Array.from({ length: size }, () => Math.floor(rnd() * 256)),
      });
    }
    const { rows } = await pool.query<{ index_id: string }>(
      `INSERT INTO indices (name, uuid, mappings, max_seq_no) VALUES ('old', 'old-uuid', '{}', 0) RETURNING index_id`,
    );
    const indexId = rows[0]!.index_id;
    for (const [i, b] of blocks.entries())
      await pool.query(
        `INSERT INTO posting_blocks (index_id, term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms,
                                     max_freq, min_norm, term_doc_freq, term_total_freq, small_run)
         VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, $9, 0, 0)`,
        [
          indexId,
          i + 1,
          b.freqs.length - 1,
          packedHex(b.freqs.map((_, k) => k)),
          packedHex(b.freqs),
          packedHex(b.norms),
          Math.max(...b.freqs),
          Math.min(...b.norms),
          b.freqs.length,
        ],
      );

    expect((await stages.runAll())[0]).toBe('0032_block_peak_postings');
    const backfilled = await pool.query<{ term_id: string; peaks: Buffer | null }>(
      'SELECT term_id, peaks FROM posting_blocks WHERE index_id = $1 ORDER BY term_id',
      [indexId],
    );
    const want = blocks.map((b) => Buffer.from(peakPairs(b.freqs, b.norms, 0, b.freqs.length)));
    expect(backfilled.rows.map((r) => r.peaks)).toEqual(want);
    expect(want.slice(0, 3).map((p) => p.toString('hex'))).toEqual([
      '',
      '',
      // (2, 10), (7, 40), (300, 200): the freq-1 posting at norm 10 is dominated by (2, 10).
      '000000020a' + '0000000728' + '0000012cc8',
    ]);
    expect(want.filter((p) => p.length >= 10).length).toBeGreaterThan(100);
    // The column is the table's last (the writers' COPY lists name it; clones copy it).
    const columns = await pool.query<{ attname: string }>(
      `SELECT attname FROM pg_attribute WHERE attrelid = 'posting_blocks'::regclass AND attnum > 0
       AND NOT attisdropped ORDER BY attnum DESC LIMIT 1`,
    );
    expect(columns.rows[0]!.attname).toBe('peaks');
    // block_peaks is STRICT: a block left with no postings (a delete's rewrite) gives NULL, not an error.
    const strict = await pool.query('SELECT block_peaks(NULL, NULL) AS p');
    expect(strict.rows[0]!.p).toBeNull();
  });
});
