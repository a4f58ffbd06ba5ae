// The embedded engines issue 23 compares search-store with, on the same documents and queries in the
// same run as (b) and (c):
//   (d) SQLite FTS5 over HTTP (better-sqlite3 12.11.1: the 13.x line needs Node 22, this repo runs 20), in
//       its own process (sqlite-server.mjs), so that it pays HTTP and JSON as search-store does;
//   (e) LanceDB (@lancedb/lancedb 0.31.0) in this process: a Rust core with its own inverted index and
//       BM25, no HTTP at all: the bar for top-k latency a Node service could embed.
// Why these two: FTS5 is what a team adds when Postgres FTS is too slow and it wants no cluster, and
// LanceDB is the embedded Rust engine of the same kind as Lucene and tantivy; both install from npm with
// prebuilt binaries, so the bench still runs after one `npm install --prefix bench`.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { concurrentQps, log, pools, request, runQueries, startChild, timed, watchMemory } from './tools.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** Bytes under a directory (LanceDB's table: data files, manifests, indices). */
function directoryBytes(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    bytes += entry.isDirectory() ? directoryBytes(path) : statSync(path).size;
  }
  return bytes;
}

/** (d) SQLite FTS5 behind node:http. `batches()` yields the documents in bulks (corpus.mjs). */
export async function measureSqlite(port, batches, documentCount, queries, aggRuns, cacheMb) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-fts5-'));
  const { child, base } = await startChild(
    join(here, 'sqlite-server.mjs'),
    { SQLITE_FILE: join(dir, 'fts5.db'), PORT: String(port), SQLITE_CACHE_MB: String(cacheMb) },
    'the SQLite FTS5 server',
  );
  const memory = watchMemory(child.pid);
  try {
    const ingest = await timed(async () => {
      for (const batch of batches()) {
        const lines = batch.map((d) => `${JSON.stringify(d)}\n`).join('');
        await request(base, 'POST', '/bulk', lines, 'application/x-ndjson');
      }
    });
    const docsPerSec = documentCount / (ingest.ms / 1000);
    log(`(d) FTS5 bulk: ${Math.round(docsPerSec)} docs/s`);
    const search = (operator) => async (words) =>
      (await request(base, 'POST', '/search', { words, operator, size: 10 })).hits.length;
    const agg = async () => {
      const { buckets } = await request(base, 'POST', '/agg', {});
      const total = buckets.reduce((sum, b) => sum + b.doc_count, 0);
      if (total !== documentCount) throw new Error(`FTS5's GROUP BY counted ${total} documents`);
      return buckets.length;
    };
    const or = await runQueries('(d) FTS5 OR', queries, search('or'));
    const and = await runQueries('(d) FTS5 AND', queries, search('and'));
    const aggs = await runQueries('(d) FTS5 GROUP BY category', Array(aggRuns).fill(''), agg, 2);
    const qps = await concurrentQps('(d) FTS5 OR', queries, search('or'));
    const { bytes } = await request(base, 'POST', '/size', {});
    return { docsPerSec, or, and, agg: aggs, qps, bytes, rss: memory.peak() };
  } finally {
    memory.stop();
    await pools.get(base)?.close();
    pools.delete(base);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * (e) LanceDB in process: one table, a batch appended per bulk, then an FTS index on body and on title
 * (counted in docs/s: search-store's index is built as it ingests). Tokenizer "simple", lower-cased, no
 * stemming, no stop words, no positions (no phrase queries here). Queries are MatchQuery on body, OR or
 * AND, limit 10. Its Node API has no GROUP BY: the aggregation reads the category and words columns and
 * groups them in JavaScript, what an application on LanceDB does.
 */
export async function measureLance(batches, documentCount, queries, aggRuns) {
  // Read by LanceDB's Rust runtime when it starts: with one thread its FTS index build hangs on 2 cores.
  process.env.LANCE_CPU_THREADS ??= '2';
  const lancedb = await import('@lancedb/lancedb');
  const dir = mkdtempSync(join(tmpdir(), 'bench-lance-'));
  try {
    const db = await lancedb.connect(dir);
    let table;
    const ingest = await timed(async () => {
      for (const batch of batches()) {
        if (table) await table.add(batch);
        else table = await db.createTable('docs', batch);
      }
      const fts = () =>
        lancedb.Index.fts({
          withPosition: false,
          baseTokenizer: 'simple',
          lowercase: true,
          stem: false,
          removeStopWords: false,
          asciiFolding: false,
        });
      // A new Index for each: LanceDB consumes one when it builds.
      await table.createIndex('body', { config: fts() });
      await table.createIndex('title', { config: fts() });
    });
    const docsPerSec = documentCount / (ingest.ms / 1000);
    log(`(e) LanceDB add + FTS index: ${Math.round(docsPerSec)} docs/s`);
    const search = (operator) => async (words) =>
      (
        await table
          .search(new lancedb.MatchQuery(words, 'body', { operator }), 'fts')
          .select(['id', '_score'])
          .limit(10)
          .toArray()
      ).length;
    const agg = async () => {
      const rows = await table.query().select(['category', 'words']).toArrow();
      const categories = rows.getChild('category');
      const words = rows.getChild('words');
      const buckets = new Map();
      for (let i = 0; i < rows.numRows; i++) {
        const key = categories.get(i);
        const bucket = buckets.get(key) ?? { count: 0, sum: 0 };
        bucket.count += 1;
        bucket.sum += Number(words.get(i));
        buckets.set(key, bucket);
      }
      const total = [...buckets.values()].reduce((sum, b) => sum + b.count, 0);
      if (total !== documentCount) throw new Error(`LanceDB's scan counted ${total} documents`);
      return buckets.size;
    };
    const or = await runQueries('(e) LanceDB OR', queries, search(lancedb.Operator.Or));
    const and = await runQueries('(e) LanceDB AND', queries, search(lancedb.Operator.And));
    const aggs = await runQueries('(e) LanceDB scan + group in JS', Array(aggRuns).fill(''), agg, 2);
    return { docsPerSec, or, and, agg: aggs, bytes: directoryBytes(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
