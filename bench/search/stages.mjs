/* global URL, setTimeout */
// Where one search's time goes (issue 23): search-store from a compiled dist/ IN THIS PROCESS, its
// exported functions wrapped with hrtime marks, over HTTP from undici as run.mjs's client, against a
// kept Postgres (DATA_DIR) loaded once with run.mjs's documents. Postgres's own execution time per
// statement comes from pg_stat_statements (preloaded in the kept cluster).
//
//   DOCS=100000 node bench/search/stages.mjs             # loads once into /tmp/search-stages/100000
//   DIST=/work/main node bench/search/stages.mjs         # the same database, another checkout's dist/
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/search/stages.mjs
//
// Knobs: DOCS (100000), QUERIES (200), ROUNDS (2: each query list answered this many times after the
// warm-up; the first answers of a round may read postings, later ones hit the postings cache),
// KINDS (`or,and`), DATA_DIR, DIST (a checkout whose services/search-store/dist is measured; default
// this one), CACHE_MB (SEARCH_POSTINGS_CACHE_MB; default the config's), SLOWEST (print this many of the
// slowest requests with their words and stages). It never builds: run
// `npx tsc -b` first. Nothing is recorded; the per-stage table is printed.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildQueries, documentBatches, readParagraphs } from './corpus.mjs';
import { log, percentile, pools, request, timed } from './tools.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = process.env.DIST ?? join(here, '..', '..');
const require = createRequire(join(root, 'package.json'));
const DOCS = Number(process.env.DOCS ?? 100_000);
const QUERIES = Number(process.env.QUERIES ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const KINDS = (process.env.KINDS ?? 'or,and').split(',').filter(Boolean);
const DATA_DIR = process.env.DATA_DIR ?? `/tmp/search-stages/${DOCS}`;
const INDEX = 'bench';
const dist = join(root, 'services/search-store/dist');
const load = (path) => require(join(dist, path));

// ---- per-request marks ----------------------------------------------------------------------------
/** The marks of the request being answered (one client, sequential requests): label → ms. */
let current;
const samples = [];
const now = () => process.hrtime.bigint();
function add(label, since) {
  if (!current) return;
  current[label] = (current[label] ?? 0) + Number(now() - since) / 1e6;
}
/** Wraps an export; promises are timed until they settle, and returned as they are (same identity). */
function wrap(module, name, label = name) {
  const original = module[name];
  if (typeof original !== 'function') throw new Error(`no function ${name} to wrap`);
  module[name] = function (...args) {
    const start = now();
    let result;
    try {
      result = original.apply(this, args);
    } catch (error) {
      add(label, start);
      throw error;
    }
    if (result && typeof result.then === 'function') {
      result.then(
        () => add(label, start),
        () => add(label, start),
      );
    } else add(label, start);
    return result;
  };
}
function wrapMethod(proto, name, label) {
  wrap(proto, name, label);
}

// pg: every statement's time as the client sees it (send → rows parsed), by statement name.
const pgModule = require('pg');
wrapPgQuery(pgModule.Pool.prototype);
function wrapPgQuery(proto) {
  const original = proto.query;
  proto.query = function (config, values, callback) {
    const label = `pg ${typeof config === 'object' && config.name ? config.name : 'unnamed'}`;
    const start = now();
    const result = original.call(this, config, values, callback);
    if (result && typeof result.then === 'function')
      result.then(
        () => add(label, start),
        () => add(label, start),
      );
    return result;
  };
}

wrap(load('query/parse/search-request.js'), 'parseSearchRequest', 'parse request');
wrap(load('query/parse/json-locations.js'), 'parseJsonWithLocations', 'parse body json');
wrap(load('http/parse-json-text.js'), 'parseJsonText', 'parse body json');
wrap(load('http/raw-json.js'), 'stringifyWithRaw', 'serialise');
wrap(load('search/fast-search.js'), 'fastSearch', 'fastSearch (all)');
wrap(load('search/load-search-catalog.js'), 'loadSearchCatalog', 'catalog statement');
wrap(load('search/fast-match/execute-fast-search.js'), 'executeFastSearch', 'executeFastSearch');
wrap(load('search/fast-match/plan-fast-match.js'), 'planFastMatch', 'plan');
wrap(load('search/fast-match/load-match-postings.js'), 'loadMatchPostings', 'postings read+decode');
wrap(load('search/fast-match/check-cached-plan.js'), 'checkCachedPlan', 'cached check+page');
wrap(load('search/fast-match/score-match-plan.js'), 'scoreMatchPlan', 'score (exhaustive)');
wrap(load('search/fast-match/block-max-top-k.js'), 'collectTopTerms', 'score (block-max)');
wrap(load('search/hits/build-hits.js'), 'buildHits', 'build hits');
wrap(load('search/execute-search.js'), 'searchResponse', 'response object');
const cacheModule = load('search/fast-match/postings-cache.js');
wrapMethod(cacheModule.PostingsCache.prototype, 'lookup', 'cache lookup');
wrapMethod(cacheModule.PostingsCache.prototype, 'remember', 'cache remember');
const searcher = load('search/searcher.js');
const makeRunner = searcher.createSearchRunner;
searcher.createSearchRunner = (deps) => {
  const run = makeRunner(deps);
  cacheModule.lastCache = deps.postingsCache;
  return (...args) => {
    const start = now();
    const result = run(...args);
    result.then(
      () => add('runner (all)', start),
      () => add('runner (all)', start),
    );
    return result;
  };
};

// ---- the server -----------------------------------------------------------------------------------
const common = require(join(root, 'packages/common/dist/index.js'));
const testkit = require(join(root, 'packages/testkit/dist/index.js'));
const { createApp } = load('app.js');
const { searchConfigSchema } = load('config.js');
const { createIndexWriter } = load('index/index-writer.js');
const { createFastSearchPool } = load('storage/fast-search-pool.js');

async function startPostgres() {
  mkdirSync(dirname(DATA_DIR), { recursive: true });
  let postgres = await testkit.startLocalPostgres({ dataDir: DATA_DIR, ephemeral: true });
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  const { rows } = await admin.query("SELECT current_setting('shared_preload_libraries') AS libs");
  if (!rows[0].libs.includes('pg_stat_statements')) {
    await admin.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await admin.end();
    await postgres.stop();
    postgres = await testkit.startLocalPostgres({ dataDir: DATA_DIR, ephemeral: true });
  } else await admin.end();
  const url = new URL(postgres.url);
  url.pathname = '/stages';
  const check = new pg.Client({ connectionString: postgres.url });
  await check.connect();
  const exists = await check.query("SELECT 1 FROM pg_database WHERE datname = 'stages'");
  if (exists.rowCount === 0) await check.query('CREATE DATABASE stages');
  await check.end();
  return { postgres, url: url.toString() };
}

async function main() {
  const { postgres, url } = await startPostgres();
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const config = common.loadConfig(searchConfigSchema, {
    ...process.env,
    DATABASE_URL: url,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    AUTH_SERVER_URL: 'http://127.0.0.1:1',
    INTROSPECTION_CLIENT_ID: 'unused',
    INTROSPECTION_CLIENT_SECRET: 'unused-unused-unused',
    ...(process.env.CACHE_MB ? { SEARCH_POSTINGS_CACHE_MB: process.env.CACHE_MB } : {}),
  });
  const logger = common.createLogger({ service: 'search-store', level: 'warn' });
  await common.runMigrations({
    databaseUrl: url,
    dir: join(root, 'services/search-store/src/storage/migrations'),
    table: 'search_migrations',
    logger,
  });
  const database = { connectionString: url, statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS };
  const pool = common.createPgPool({ ...database, max: 20 });
  const fastPool = createFastSearchPool({ ...database, max: 10 });
  // Connections still open when the server stops at the end must not crash the printout.
  for (const p of [pool, fastPool]) p.on('error', () => undefined);
  const grantAll = (req, _res, next) => {
    req.principal = {
      subject: 'bench',
      clientId: 'bench',
      scopes: ['search.read', 'search.write', 'search.admin'],
      audience: ['search-store'],
      source: 'introspection',
    };
    next();
  };
  const app = createApp({
    config,
    pool,
    fastPool,
    logger,
    indexWriter: createIndexWriter(),
    authenticate: grantAll,
  });
  // The whole server-side answer: node's request event to the response's 'finish'.
  const handler = (req, res) => {
    const start = now();
    res.on('finish', () => add('server (all)', start));
    app(req, res);
  };
  const server = createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const paragraphs = readParagraphs();
  const count = await request(base, 'GET', `/${INDEX}/_count`).catch(() => ({ count: -1 }));
  if (count.count !== DOCS) {
    if (count.count !== -1) await request(base, 'DELETE', `/${INDEX}`);
    log(`loading ${DOCS} documents into ${DATA_DIR} (once)`);
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
    for (const batch of documentBatches(paragraphs, DOCS, 5000, 3)) {
      const lines = batch
        .map(({ id, ...source }) => `{"index":{"_id":${JSON.stringify(id)}}}\n${JSON.stringify(source)}\n`)
        .join('');
      const result = await request(base, 'POST', `/${INDEX}/_bulk`, lines, 'application/x-ndjson');
      if (result.errors) throw new Error('bulk had errors');
    }
    // Let the background ANALYZE finish (the merges are waited for below), as run.mjs does.
    for (let i = 0; i < 1200; i++) {
      const { rows } = await db.query(
        "SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()",
      );
      if (rows[0].busy === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // The background merges the load left (a run stopped early leaves some): as the bench's steady
  // state, every candidate run merged; then statistics and the visibility map (run.mjs's maintain).
  const { rows: ids } = await db.query('SELECT index_id FROM indices WHERE name = $1', [INDEX]);
  const merger = load('index/segment-merger.js').segmentMergerFor(pool);
  merger.noteWrites([ids[0].index_id]);
  await merger.idle();
  await db.query('VACUUM ANALYZE');
  await new Promise((r) => setTimeout(r, 2000));
  await db.query('VACUUM');
  const queries = buildQueries(paragraphs, QUERIES);
  const match = (operator) => async (words) =>
    (
      await request(base, 'POST', `/${INDEX}/_search`, {
        size: 10,
        query: { match: { body: { query: words, operator } } },
      })
    ).hits.hits.length;
  log(`${DOCS} documents, ${queries.length} queries, ${ROUNDS} rounds, dist ${dist}`);
  for (const kind of KINDS) {
    const run = match(kind);
    for (const q of queries.slice(0, 20)) await run(q);
    await db.query('SELECT pg_stat_statements_reset()');
    samples.length = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const q of queries) {
        current = {};
        const { ms } = await timed(() => run(q));
        current['client (all)'] = ms;
        samples.push({ ...current, round, query: q });
        current = undefined;
      }
    }
    printStages(kind);
    printSlowest(kind);
    const { rows } = await db.query(
      `SELECT calls, round(mean_exec_time::numeric, 3) AS mean_ms, round(total_exec_time::numeric, 1) AS total_ms,
              rows / greatest(calls, 1) AS rows_per_call, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY total_exec_time DESC LIMIT 8`,
    );
    console.log(`Postgres execution (pg_stat_statements), ${kind}:`);
    console.table(rows);
  }
  const cache = cacheModule.lastCache;
  if (cache) console.log('postings cache:', cache.size);
  await db.end();
  for (const p of pools.values()) await p.close();
  await new Promise((r) => server.close(r));
  await pool.end();
  await fastPool.end();
  await postgres.stop();
}

function printStages(kind) {
  const labels = new Set();
  for (const s of samples) for (const k of Object.keys(s)) if (k !== 'round' && k !== 'query') labels.add(k);
  const rows = [...labels].map((label) => {
    const values = samples.map((s) => s[label] ?? 0);
    const present = samples.filter((s) => s[label] !== undefined).length;
    return {
      stage: label,
      'in % of requests': Math.round((100 * present) / samples.length),
      'mean ms': +(values.reduce((a, b) => a + b, 0) / values.length).toFixed(3),
      'p50 ms': +percentile(values, 50).toFixed(3),
      'p99 ms': +percentile(values, 99).toFixed(3),
    };
  });
  rows.sort((a, b) => b['mean ms'] - a['mean ms']);
  console.log(`\nmatch ${kind}: ${samples.length} requests (means over all requests; overlapping stages)`);
  console.table(rows);
}

/** SLOWEST=n: the n slowest requests, each with its words, round and the stages it spent ≥ 1 ms in. */
function printSlowest(kind) {
  const n = Number(process.env.SLOWEST ?? 0);
  if (!(n > 0)) return;
  const slowest = [...samples].sort((a, b) => b['client (all)'] - a['client (all)']).slice(0, n);
  console.log(`match ${kind}: the ${slowest.length} slowest requests`);
  for (const s of slowest) {
    const stages = Object.entries(s)
      .filter(([k, v]) => k !== 'round' && k !== 'query' && !k.endsWith('(all)') && v >= 1)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ');
    console.log(`  ${s['client (all)'].toFixed(1)} ms round ${s.round} "${s.query}": ${stages}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
