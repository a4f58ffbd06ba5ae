/* global fetch, setTimeout, setInterval, clearInterval */
// What the search bench's targets share: timing, percentiles, the query loop, peak RSS, the HTTP client.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

export const WARMUP_QUERIES = 20;
/** Concurrent clients of the QPS line (issue 23: 8). */
export const CLIENTS = Number(process.env.CLIENTS ?? 8);

export const log = (message) =>
  process.stderr.write(`[bench] ${new Date().toISOString().slice(11, 19)} ${message}\n`);

export function percentile(values, p) {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const summary = (times) => ({
  p50: percentile(times, 50),
  p99: percentile(times, 99),
  max: Math.max(...times),
});

export async function timed(fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

export async function runQueries(name, queries, run, warmup = WARMUP_QUERIES) {
  for (const query of queries.slice(0, warmup)) await run(query);
  const times = [];
  let hits = 0;
  for (const query of queries) {
    const { ms, value } = await timed(() => run(query));
    times.push(ms);
    hits += value;
  }
  const result = { ...summary(times), meanHits: hits / queries.length };
  log(`${name}: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`);
  return result;
}

/** search-store's peak RSS: VmHWM (the kernel's high-water mark) and our own VmRSS samples. */
export function watchMemory(pid) {
  let peak = 0;
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      for (const key of ['VmHWM', 'VmRSS']) {
        const match = new RegExp(`${key}:\\s+(\\d+) kB`).exec(status);
        if (match) peak = Math.max(peak, Number(match[1]) * 1024);
      }
    } catch {
      // the process has exited
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

/**
 * Requests to search-store go through undici's keep-alive Pool, the HTTP client the official
 * @elastic/elasticsearch client sends with (its default UndiciConnection); (b) goes through node-pg.
 * Both sides measure a client library's call, not fetch's extra stream and Response machinery
 * (~0.3 ms a request here, which (b) does not pay). Eight connections: the concurrent-clients line.
 */
export const pools = new Map();
export async function request(base, method, path, body, contentType = 'application/json') {
  let pool = pools.get(base);
  if (!pool) pools.set(base, (pool = new Pool(base, { connections: CLIENTS })));
  const response = await pool.request({
    method,
    path,
    headers: { 'content-type': contentType },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = await response.body.json();
  if (response.statusCode >= 300)
    throw new Error(`${method} ${path} answered ${response.statusCode}: ${JSON.stringify(json)}`);
  return json;
}

/**
 * Queries per second with CLIENTS clients at once, each sending its next query as soon as its last one
 * is answered (closed loop), every query of the list `rounds` times in all.
 */
export async function concurrentQps(name, queries, run, rounds = 3) {
  const work = Array.from({ length: rounds }, () => queries).flat();
  let next = 0;
  const client = async () => {
    while (next < work.length) await run(work[next++]);
  };
  const { ms } = await timed(() => Promise.all(Array.from({ length: CLIENTS }, client)));
  const qps = work.length / (ms / 1000);
  log(`${name}: ${Math.round(qps)} queries/s with ${CLIENTS} clients`);
  return qps;
}

/** A server script of this folder in its own node process, once its GET /health answers. */
export async function startChild(script, env, name) {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited`);
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`${name} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, base };
}
