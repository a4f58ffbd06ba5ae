import { statisticsRefresherFor } from '../../src/storage/statistics-refresher';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { client8 } from '../support/http';

/** Manual ANALYZE runs per table (autovacuum's count separately as autoanalyze_count). */
async function analyzeCounts(server: RunningSearchStore): Promise<Record<string, number>> {
  const { rows } = await server.pool.query<{ relname: string; analyze_count: string }>(
    `SELECT relname, analyze_count FROM pg_stat_user_tables
     WHERE relname IN ('documents', 'doc_values', 'posting_blocks', 'term_dictionary')`,
  );
  return Object.fromEntries(rows.map((r) => [r.relname, Number(r.analyze_count)]));
}

/** pg_stat counters are sent by the backend at the end of its transaction; give the collector a moment. */
async function settledCounts(server: RunningSearchStore, expected: number): Promise<Record<string, number>> {
  for (let i = 0; i < 50; i++) {
    const counts = await analyzeCounts(server);
    if (Object.values(counts).every((c) => c >= expected)) return counts;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return analyzeCounts(server);
}

describe('planner statistics of a fast-growing index', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  beforeAll(async () => {
    server = await startSearchStore();
    // Only the refresher analyzes these here: which columns got statistics is then its doing.
    await server.pool.query(
      `ALTER TABLE documents SET (autovacuum_enabled = false);
       ALTER TABLE posting_blocks SET (autovacuum_enabled = false);
       ALTER TABLE doc_tokens SET (autovacuum_enabled = false);
       ALTER TABLE field_stats SET (autovacuum_enabled = false)`,
    );
  });
  afterAll(async () => {
    await server.stop();
  });

  const bulk = async (from: number, count: number) => {
    const operations = Array.from({ length: count }, (_, i) => [
      { index: { _index: 'grow', _id: String(from + i) } },
      { tag: `t${(from + i) % 7}`, n: from + i },
    ]).flat();
    const result = await es().bulk({ operations });
    expect(result.errors).toBe(false);
  };

  it('are refreshed by ANALYZE once 1,000 documents were written, not at every write', async () => {
    await es().indices.create({
      index: 'grow',
      mappings: { properties: { tag: { type: 'keyword' }, n: { type: 'long' } } },
    });
    const before = await analyzeCounts(server);
    await bulk(0, 600);
    expect(statisticsRefresherFor(server.pool).running).toBeUndefined();
    await bulk(600, 600);
    await statisticsRefresherFor(server.pool).running;
    const after = await settledCounts(server, (before.documents ?? 0) + 1);
    for (const table of ['documents', 'doc_values', 'posting_blocks', 'term_dictionary'])
      expect(after[table]).toBe((before[table] ?? 0) + 1);
    // The next one once this instance's writes doubled (1,200 more): 500 more start nothing.
    await bulk(1200, 500);
    expect(statisticsRefresherFor(server.pool).running).toBeUndefined();
    expect((await analyzeCounts(server)).documents).toBe(after.documents);
  });

  it('sample only the columns that plans estimate rows from', async () => {
    // After the refresh above (the first ANALYZE of these tables in this database).
    const { rows } = await server.pool.query<{ column: string }>(
      `SELECT tablename || '.' || attname AS column FROM pg_stats
        WHERE schemaname = current_schema()
          AND tablename IN ('documents', 'posting_blocks', 'doc_tokens', 'field_stats')
        ORDER BY 1`,
    );
    expect(rows.map((r) => r.column)).toEqual([
      'doc_tokens.doc_key',
      'doc_tokens.field_id',
      'doc_tokens.index_id',
      'documents.doc_key',
      'documents.id',
      'documents.index_id',
      'field_stats.field_id',
      'field_stats.index_id',
      'posting_blocks.base_doc_key',
      'posting_blocks.index_id',
      'posting_blocks.last_doc_key',
      'posting_blocks.small_run',
      'posting_blocks.term_id',
    ]);
  });

  it('leaves answers unchanged: a terms aggregation over the index just written', async () => {
    const result = await es().search({
      index: 'grow',
      size: 0,
      query: { range: { n: { gte: 0 } } },
      aggs: { tags: { terms: { field: 'tag', size: 10 } } },
    });
    const buckets = (result.aggregations?.tags as { buckets: { key: string; doc_count: number }[] }).buckets;
    // 1,700 documents over 7 tags: t0..t6 hold 243 or 242 each.
    expect(buckets.reduce((sum, b) => sum + b.doc_count, 0)).toBe(1700);
    expect(buckets.map((b) => b.doc_count).sort()).toEqual([242, 243, 243, 243, 243, 243, 243]);
  });

  it('are refreshed after a clone, which writes a whole index in one statement', async () => {
    await es().indices.putSettings({ index: 'grow', settings: { 'index.blocks.write': true } });
    const before = await analyzeCounts(server);
    // 1,700 copied documents take this instance's writes from 1,700 to 3,400: doubled since the last run.
    await es().indices.clone({ index: 'grow', target: 'grown' });
    await statisticsRefresherFor(server.pool).running;
    const after = await settledCounts(server, (before.documents ?? 0) + 1);
    for (const table of ['documents', 'doc_values', 'posting_blocks', 'term_dictionary'])
      expect(after[table]).toBe((before[table] ?? 0) + 1);
    expect((await es().count({ index: 'grown' })).count).toBe(1700);
  });

  it('leave the inverted index array columns without statistics (migration 0005)', async () => {
    // Its own index, after the tests above have counted this instance's writes.
    const written = await es().bulk({
      refresh: true,
      operations: Array.from({ length: 20 }, (_, i) => [
        { index: { _index: 'arrays' } },
        { tag: `t${i % 3}` },
      ]).flat(),
    });
    expect(written.errors).toBe(false);
    await server.pool.query('ANALYZE posting_blocks, doc_tokens');
    const { rows } = await server.pool.query<{ table: string; column: string }>(
      `SELECT tablename AS table, attname AS column FROM pg_stats
        WHERE schemaname = current_schema() AND tablename IN ('posting_blocks', 'doc_tokens')
        ORDER BY 1, 2`,
    );
    const columns = rows.map((r) => `${r.table}.${r.column}`);
    // The key columns keep theirs (the planner's row estimates); the arrays, read only by the scorer, none.
    expect(columns).toEqual(
      expect.arrayContaining(['posting_blocks.term_id', 'posting_blocks.base_doc_key', 'doc_tokens.doc_key']),
    );
    for (const column of ['posting_blocks.doc_offsets', 'posting_blocks.freqs', 'posting_blocks.norms'])
      expect(columns).not.toContain(column);
    expect(columns).not.toContain('doc_tokens.term_ids');
  });
});
