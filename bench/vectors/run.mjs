/* global fetch, setTimeout, setInterval, clearInterval, URL */
// One command: `node bench/vectors/run.mjs` (after `npm install --prefix bench`; hnswlib-node builds with
// node-gyp, so it needs a C++ toolchain). Builds the repo, starts one local Postgres (the compiled
// @acme/testkit, fsync off) and search-store from dist/ in a child process, then on the same data:
//   ingest   VECTORS documents {v: float[DIMS]} by _bulk (BULK per request) into a dense_vector field
//            (cosine, index_options hnsw m 16, ef_construction 100): vectors/s with the graph, size on disk
//   hnsw     top-level knn, k 10, num_candidates 100, over HTTP: p50/p99 and recall@10
//   exact    the exact path over HTTP: script_score cosineSimilarity over match_all (EXACT_QUERIES queries:
//            it scores every vector), checked against the ground truth
//   peer     hnswlib-node in process (same M, ef_construction; ef 100): build time, p50/p99, recall@10
// Ground truth: a brute-force scan in this process. Data (deterministic): mulberry32(SEED); CENTROIDS
// centroids uniform in [-1, 1]^DIMS, each vector a random centroid + Gaussian noise (σ = NOISE per
// dimension, Box–Muller), normalised; queries drawn the same way from another seed.
// Prints the figures and the targets of issue 22 and appends a section to bench/RESULTS.md (NO_RECORD=1
// to skip). Knobs: VECTORS (100000), DIMS (384), QUERIES (200), EXACT_QUERIES (10), BULK (1000),
// CENTROIDS (100), NOISE (0.6), SEED (22), INDEX_TYPE (hnsw; flat = no graph); PROFILE=<dir> writes search-store's CPU profile there.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const require = createRequire(import.meta.url);

const VECTORS = Number(process.env.VECTORS ?? 100_000);
const DIMS = Number(process.env.DIMS ?? 384);
const QUERIES = Number(process.env.QUERIES ?? 200);
const EXACT_QUERIES = Number(process.env.EXACT_QUERIES ?? 10);
const BULK = Number(process.env.BULK ?? 1000);
const CENTROIDS = Number(process.env.CENTROIDS ?? 100);
const NOISE = Number(process.env.NOISE ?? 0.6);
const SEED = Number(process.env.SEED ?? 22);
const INDEX_TYPE = process.env.INDEX_TYPE ?? 'hnsw';
const K = 10;
const NUM_CANDIDATES = 100;
const M = 16;
const EF_CONSTRUCTION = 100;
const WARMUP = 20;
const INDEX = 'vectors';

const log = (message) =>
  process.stderr.write(`[bench] ${new Date().toISOString().slice(11, 19)} ${message}\n`);

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random) {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function normalise(v) {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/** Clustered data: centroid + σ·N(0, 1) per dimension, normalised, rounded to float32. */
function generate(count, seed, centroids) {
  const random = mulberry32(seed);
  const out = [];
  for (let n = 0; n < count; n++) {
    const c = centroids[Math.floor(random() * centroids.length)];
    const v = new Float64Array(DIMS);
    for (let i = 0; i < DIMS; i++) v[i] = c[i] + ((NOISE * gaussian(random)) / Math.sqrt(DIMS)) * 4;
    out.push(Float32Array.from(normalise(v)));
  }
  return out;
}

function makeCentroids() {
  const random = mulberry32(SEED);
  return Array.from({ length: CENTROIDS }, () =>
    Float64Array.from({ length: DIMS }, () => random() * 2 - 1).map((x) => x / Math.sqrt(DIMS / 3)),
  );
}

function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Brute force: the ids (1-based, as indexed) of the k most cosine-similar vectors. */
function groundTruth(vectors, query, k) {
  const best = [];
  for (let i = 0; i < vectors.length; i++) {
    const s = dot(vectors[i], query);
    if (best.length < k || s > best[best.length - 1][1]) {
      best.push([i + 1, s]);
      best.sort((a, b) => b[1] - a[1]);
      if (best.length > k) best.pop();
    }
  }
  return best.map(([id]) => String(id));
}

function recallOf(results, truths) {
  let found = 0;
  results.forEach((ids, q) => {
    const truth = new Set(truths[q]);
    found += ids.filter((id) => truth.has(String(id))).length;
  });
  return found / (results.length * K);
}

function percentile(values, p) {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function timed(fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** Runs each query (after WARMUP unmeasured ones); p50/p99 and the ids each answered. */
async function runQueries(name, queries, run, warmup = WARMUP) {
  for (const q of queries.slice(0, warmup)) await run(q);
  const times = [];
  const results = [];
  for (const q of queries) {
    const { ms, value } = await timed(() => run(q));
    times.push(ms);
    results.push(value);
  }
  const out = { p50: percentile(times, 50), p99: percentile(times, 99), results };
  log(`${name}: p50 ${out.p50.toFixed(2)} ms, p99 ${out.p99.toFixed(2)} ms`);
  return out;
}

function watchMemory(pid) {
  let peak = 0;
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      for (const key of ['VmHWM', 'VmRSS']) {
        const match = new RegExp(`${key}:\\s+(\\d+) kB`).exec(status);
        if (match) peak = Math.max(peak, Number(match[1]) * 1024);
      }
    } catch {
      // exited
    }
  };
  const timer = setInterval(read, 100);
  return {
    peak: () => {
      read();
      return peak;
    },
    stop: () => clearInterval(timer),
  };
}

const pools = new Map();
async function request(base, method, path, body, contentType = 'application/json') {
  let pool = pools.get(base);
  if (!pool) pools.set(base, (pool = new Pool(base, { connections: 4 })));
  const response = await pool.request({
    method,
    path,
    headers: { 'content-type': contentType },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = await response.body.json();
  if (response.statusCode >= 300)
    throw new Error(
      `${method} ${path} answered ${response.statusCode}: ${JSON.stringify(json).slice(0, 500)}`,
    );
  return json;
}

async function startSearchStore(databaseUrl, port) {
  // PROFILE=<dir>: search-store writes a V8 CPU profile there when it exits.
  const profile = process.env.PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, join(root, 'bench/search/search-server.mjs')], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('search-store exited');
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error('search-store did not start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, base };
}

const vectorJson = (v) => `[${Array.from(v, (x) => x.toPrecision(7)).join(',')}]`;

async function measureSearchStore(databaseUrl, port, vectors, queries, truths) {
  const { child, base } = await startSearchStore(databaseUrl, port);
  const memory = watchMemory(child.pid);
  try {
    await request(base, 'PUT', `/${INDEX}`, {
      mappings: {
        properties: {
          v: {
            type: 'dense_vector',
            dims: DIMS,
            similarity: 'cosine',
            // INDEX_TYPE=flat: the same ingest without the graph (what the graph costs).
            index_options:
              INDEX_TYPE === 'flat'
                ? { type: 'flat' }
                : { type: 'hnsw', m: M, ef_construction: EF_CONSTRUCTION },
          },
        },
      },
    });
    const ingest = await timed(async () => {
      for (let i = 0; i < vectors.length; i += BULK) {
        const lines = vectors
          .slice(i, i + BULK)
          .map((v, j) => `{"index":{"_id":"${i + j + 1}"}}\n{"v":${vectorJson(v)}}\n`)
          .join('');
        const result = await request(base, 'POST', `/${INDEX}/_bulk`, lines, 'application/x-ndjson');
        if (result.errors)
          throw new Error(`bulk had errors: ${JSON.stringify(result.items.find((x) => x.index.error))}`);
        if ((i / BULK) % 10 === 0) log(`ingested ${i + BULK}`);
      }
    });
    const vectorsPerSec = vectors.length / (ingest.ms / 1000);
    log(`ingest: ${Math.round(vectorsPerSec)} vectors/s`);
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query('VACUUM ANALYZE');
    const sizes = await admin.query(
      `SELECT c.relname, pg_total_relation_size(c.oid)::bigint AS bytes FROM pg_class c
       WHERE c.relname IN ('dense_vectors', 'hnsw_nodes', 'hnsw_graphs', 'documents') AND c.relkind = 'r'`,
    );
    await admin.end();
    const bytes = Object.fromEntries(sizes.rows.map((r) => [r.relname, Number(r.bytes)]));
    const knn = (q) =>
      request(base, 'POST', `/${INDEX}/_search`, {
        size: K,
        _source: false,
        knn: { field: 'v', query_vector: Array.from(q), k: K, num_candidates: NUM_CANDIDATES },
      }).then((body) => body.hits.hits.map((h) => h._id));
    const hnsw = await runQueries('search-store knn (hnsw)', queries, knn);
    // A search of 10 hits with no vector work: what any search costs here (HTTP, snapshot, hits).
    const tenIds = Array.from({ length: K }, (_, i) => String(i + 1));
    const floor = await runQueries('search-store ids (floor)', queries, () =>
      request(base, 'POST', `/${INDEX}/_search`, {
        size: K,
        _source: false,
        query: { ids: { values: tenIds } },
      }).then((body) => body.hits.hits.map((h) => h._id)),
    );
    const exactQueries = queries.slice(0, EXACT_QUERIES);
    const scriptScore = (q) =>
      request(base, 'POST', `/${INDEX}/_search`, {
        size: K,
        _source: false,
        query: {
          script_score: {
            query: { match_all: {} },
            script: { source: "cosineSimilarity(params.q, 'v') + 1.0", params: { q: Array.from(q) } },
          },
        },
      }).then((body) => body.hits.hits.map((h) => h._id));
    const exact = await runQueries('search-store script_score (exact)', exactQueries, scriptScore, 1);
    return {
      vectorsPerSec,
      bytes,
      hnsw: { ...hnsw, recall: recallOf(hnsw.results, truths) },
      floor,
      exact: { ...exact, recall: recallOf(exact.results, truths.slice(0, EXACT_QUERIES)) },
      rss: memory.peak(),
    };
  } finally {
    memory.stop();
    for (const pool of pools.values()) await pool.close();
    pools.clear();
    child.kill('SIGTERM');
  }
}

async function measureHnswlib(vectors, queries, truths) {
  const { HierarchicalNSW } = require(join(root, 'bench/node_modules/hnswlib-node'));
  const index = new HierarchicalNSW('cosine', DIMS);
  index.initIndex(vectors.length, M, EF_CONSTRUCTION, SEED);
  const build = await timed(() => vectors.forEach((v, i) => index.addPoint(Array.from(v), i + 1)));
  index.setEf(NUM_CANDIDATES);
  const search = (q) => index.searchKnn(Array.from(q), K).neighbors.map(String);
  const result = await runQueries('hnswlib-node in process', queries, async (q) => search(q));
  return {
    ...result,
    recall: recallOf(result.results, truths),
    vectorsPerSec: vectors.length / (build.ms / 1000),
  };
}

const f0 = (n) => Math.round(n).toLocaleString('en-US');
const f2 = (n) => n.toFixed(2);
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

function report({ started, loadBefore, store, peer }) {
  const speedup = store.exact.p50 / store.hnsw.p50;
  const graphBytes = (store.bytes.hnsw_nodes ?? 0) + (store.bytes.hnsw_graphs ?? 0);
  return [
    `## vectors ${started.toISOString()}`,
    '',
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; one local Postgres (fsync off). ` +
      `Commit ${commit()}; load average before the run ${loadBefore.map((n) => n.toFixed(2)).join(' ')}.`,
    `Data: ${f0(VECTORS)} vectors of ${DIMS} dims, mulberry32(${SEED}): ${CENTROIDS} centroids uniform in [-1, 1]^${DIMS}, ` +
      `each vector a random centroid + Gaussian noise, normalised; ${QUERIES} queries drawn the same way (another seed). ` +
      `cosine, hnsw m ${M}, ef_construction ${EF_CONSTRUCTION}; k ${K}, num_candidates ${NUM_CANDIDATES} (hnswlib ef ${NUM_CANDIDATES}). ` +
      `Recall@${K} against a brute-force scan; bulks of ${BULK}; one client, sequential requests over HTTP (undici).`,
    '',
    '| path | p50 | p99 | recall@10 | build |',
    '|---|---|---|---|---|',
    `| search-store knn (our HNSW), HTTP | ${f2(store.hnsw.p50)} ms | ${f2(store.hnsw.p99)} ms | ${store.hnsw.recall.toFixed(3)} | ${f0(store.vectorsPerSec)} vectors/s (_bulk, graph in the write's transaction) |`,
    `| search-store exact (script_score cosineSimilarity over match_all, ${EXACT_QUERIES} queries), HTTP | ${f2(store.exact.p50)} ms | ${f2(store.exact.p99)} ms | ${store.exact.recall.toFixed(3)} | |`,
    `| search-store ids query of 10 documents (no vector work: the floor of any search), HTTP | ${f2(store.floor.p50)} ms | ${f2(store.floor.p99)} ms | | |`,
    `| hnswlib-node in process | ${f2(peer.p50)} ms | ${f2(peer.p99)} ms | ${peer.recall.toFixed(3)} | ${f0(peer.vectorsPerSec)} vectors/s |`,
    '',
    `Size on disk: dense_vectors ${mb(store.bytes.dense_vectors ?? 0)}, graph (hnsw_nodes + hnsw_graphs) ${mb(graphBytes)}, documents ${mb(store.bytes.documents ?? 0)}.`,
    '',
    '| target | value | |',
    '|---|---|---|',
    `| recall@10 ≥ 0.95 | ${store.hnsw.recall.toFixed(3)} | ${check(store.hnsw.recall >= 0.95)} |`,
    `| knn p50 ≤ 10 ms over HTTP | ${f2(store.hnsw.p50)} ms | ${check(store.hnsw.p50 <= 10)} |`,
    `| ≥ 10× faster than the exact scan | ${speedup.toFixed(1)}× | ${check(speedup >= 10)} |`,
    `| ingest ≥ 1,000 vectors/s with the graph | ${f0(store.vectorsPerSec)} | ${check(store.vectorsPerSec >= 1000)} |`,
    `| search-store peak RSS ≤ 512 MB | ${mb(store.rss)} | ${check(store.rss <= 512 * 2 ** 20)} |`,
    '',
  ].join('\n');
}

async function main() {
  const started = new Date();
  const loadBefore = loadavg();
  log('building the repo (npx tsc -b)');
  if (spawnSync('npx', ['tsc', '-b'], { cwd: root, stdio: 'inherit' }).status !== 0)
    throw new Error('npx tsc -b failed');
  const centroids = makeCentroids();
  const vectors = generate(VECTORS, SEED + 1, centroids);
  const queries = generate(QUERIES, SEED + 2, centroids);
  log(`${VECTORS} vectors, ${QUERIES} queries generated; computing the ground truth`);
  const truths = queries.map((q) => groundTruth(vectors, q, K));
  const peer = await measureHnswlib(vectors, queries, truths);
  const testkit = require(join(root, 'packages/testkit/dist/index.js'));
  const postgres = await testkit.startLocalPostgres({ ephemeral: true });
  try {
    const url = new URL(postgres.url);
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('CREATE DATABASE vector_bench');
    await admin.end();
    url.pathname = '/vector_bench';
    const store = await measureSearchStore(
      url.toString(),
      await testkit.findFreePort(),
      vectors,
      queries,
      truths,
    );
    const section = report({ started, loadBefore, store, peer });
    console.log(`\n${section}`);
    if (!process.env.NO_RECORD) {
      appendFileSync(join(root, 'bench/RESULTS.md'), `\n${section}`);
      log('appended to bench/RESULTS.md');
    }
  } finally {
    await postgres.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
