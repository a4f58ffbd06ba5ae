/* global fetch, setTimeout, URL, URLSearchParams */
// One command: `node bench/introspection/run.mjs` (after `npm install --prefix bench`).
// Starts a local Postgres and Redis (the compiled @acme/testkit), then measures, one after the other with
// autocannon (CONNECTIONS connections, DURATION s each, after a WARMUP s warm-up):
//   (a)      a bare express endpoint with /token_info's body and Basic parsing and no lookup
//   (b)      auth-server's /token_info with a warm cache
//   (c)      auth-server's /token_info with the cache off (INTROSPECTION_CACHE_MAX_SECONDS=0), Redis emptied
//   (d-mem)  node-oidc-provider's introspection, in-memory store
//   (d-pg)   node-oidc-provider's introspection, the minimal Postgres adapter in postgres-adapter.mjs
// Prints req/s, p50, p99 and the ratios, and appends a dated section to bench/RESULTS.md.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { SCHEMA } from './postgres-adapter.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const require = createRequire(import.meta.url);

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 3);
const TOKENS = Number(process.env.TOKENS ?? 200);
const ONLY = process.env.ONLY?.split(',');
// ONLY=a,d-mem runs a subset; NO_RECORD=1 prints without appending to bench/RESULTS.md.
// PROFILE_DIR=/tmp/prof writes a V8 CPU profile (node --cpu-prof) of every target process there.
const PROFILE_DIR = process.env.PROFILE_DIR;

const log = (message) => process.stderr.write(`[bench] ${message}\n`);
const basic = (id, secret) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const secret = () => randomBytes(32).toString('base64url');

/** Compiles the repo (tsc -b is incremental) so dist/ matches the sources. */
function build() {
  log('building the repo (npx tsc -b)');
  const result = spawnSync('npx', ['tsc', '-b'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npx tsc -b failed');
}

const children = new Set();

/** Starts `node <script>` with env and waits until `ready()` resolves. */
async function startProcess(name, script, env, ready) {
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr = [];
  child.stderr.on('data', (chunk) => stderr.push(chunk.toString()));
  children.add(child);
  child.on('exit', () => children.delete(child));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${stderr.join('').slice(-2000)}`);
    if (await ready().catch(() => false)) break;
    if (Date.now() > deadline) throw new Error(`${name} did not start: ${stderr.join('').slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const listening = (url) => async () => {
  const response = await fetch(url, { method: 'POST' });
  return response.status > 0;
};

/** POSTs a form; throws unless 200/201; returns the JSON body. */
async function postForm(url, authorization, form) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function issueTokens(tokenUrl, clientId, clientSecret) {
  const tokens = [];
  for (let i = 0; i < TOKENS; i += 1) {
    const body = await postForm(tokenUrl, basic(clientId, clientSecret), {
      grant_type: 'client_credentials',
    });
    tokens.push(body.access_token);
  }
  return tokens;
}

/**
 * Refuses a target unless every token in rotation answers active:true: a benchmark of 401s or of
 * {active:false} would lie (both are 200s or fast paths). Run before and after the measurement.
 */
async function checkActive(target) {
  for (const token of target.tokens) {
    const body = await postForm(target.url, target.authorization, { token, token_type_hint: 'access_token' });
    if (body.active !== true)
      throw new Error(`${target.name}: a token is not active: ${JSON.stringify(body)}`);
  }
}

function load(target, seconds) {
  let next = 0;
  return autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { authorization: target.authorization, 'content-type': 'application/x-www-form-urlencoded' },
        setupRequest: (request) => {
          const token = target.tokens[next++ % target.tokens.length];
          return { ...request, body: `token=${token}&token_type_hint=access_token` };
        },
      },
    ],
  });
}

async function measure(target) {
  await checkActive(target);
  log(`${target.name}: warm-up ${WARMUP} s`);
  await load(target, WARMUP);
  log(`${target.name}: measuring ${DURATION} s with ${CONNECTIONS} connections`);
  const result = await load(target, DURATION);
  await checkActive(target);
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) log(`${target.name}: WARNING ${failed} failed responses (non-2xx, errors, timeouts)`);
  return {
    name: target.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed,
  };
}

/** (a) */
async function bareTarget(port) {
  const rsId = 'bench-rs';
  const rsSecret = secret();
  const url = `http://127.0.0.1:${port}/token_info`;
  const child = await startProcess(
    'bare express',
    join(here, 'bare-server.mjs'),
    {
      PORT: String(port),
      RS_ID: rsId,
      RS_SECRET: rsSecret,
    },
    listening(url),
  );
  const tokens = Array.from({ length: TOKENS }, () => secret());
  return { name: 'a bare express', url, authorization: basic(rsId, rsSecret), tokens, stop: child.stop };
}

/** (d-mem) and (d-pg) */
async function peerTarget(name, port, adapter, databaseUrl) {
  const clientId = 'bench-client';
  const clientSecret = secret();
  const rsId = 'bench-rs';
  const rsSecret = secret();
  const base = `http://127.0.0.1:${port}`;
  const child = await startProcess(
    name,
    join(here, 'oidc-peer.mjs'),
    {
      PORT: String(port),
      ADAPTER: adapter,
      DATABASE_URL: databaseUrl ?? '',
      CLIENT_ID: clientId,
      CLIENT_SECRET: clientSecret,
      RS_ID: rsId,
      RS_SECRET: rsSecret,
      NODE_ENV: 'production',
    },
    listening(`${base}/token/introspection`),
  );
  const tokens = await issueTokens(`${base}/token`, clientId, clientSecret);
  return {
    name,
    url: `${base}/token/introspection`,
    authorization: basic(rsId, rsSecret),
    tokens,
    stop: child.stop,
  };
}

/** (b) and (c): auth-server from its compiled main.js; resource server, client and tokens via the admin API. */
async function authServerTarget(name, port, env, setup) {
  const base = `http://127.0.0.1:${port}`;
  const child = await startProcess(
    name,
    join(root, 'services/auth-server/dist/main.js'),
    {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ISSUER: base,
    },
    async () => (await fetch(`${base}/health`)).ok,
  );
  if (!setup.tokens) {
    const admin = async (path, body) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await response.json();
      if (response.status !== 201)
        throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const rs = await admin('/admin/resource-servers', {
      id: 'bench-rs',
      audience: 'https://bench-rs.example',
      scopes: ['bench.read'],
    });
    const client = await admin('/admin/clients', {
      name: 'bench client',
      client_type: 'confidential',
      grant_types: ['client_credentials'],
      response_types: [],
      scopes: ['bench.read'],
    });
    setup.authorization = basic(rs.id, rs.secret);
    setup.tokens = await issueTokens(`${base}/token`, client.client_id, client.client_secret);
  }
  return {
    name,
    url: `${base}/token_info`,
    authorization: setup.authorization,
    tokens: setup.tokens,
    stop: child.stop,
  };
}

async function flushRedis(url) {
  const Redis = require(join(root, 'node_modules/ioredis'));
  const client = new Redis(url);
  try {
    await client.flushall();
  } finally {
    client.disconnect();
  }
}

const ratio = (x, y) => (x && y ? (x.rps / y.rps).toFixed(2) : 'n/a');
const ms = (value) => (value === undefined ? 'n/a' : `${value} ms`);

function commit() {
  const result = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : 'unknown';
}

function report(results, started, notes, loadBefore) {
  const by = Object.fromEntries(results.map((r) => [r.name.split(' ')[0], r]));
  const rows = results.map(
    (r) => `| ${r.name} | ${Math.round(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.failed} |`,
  );
  const ratios = [
    ['b/a', ratio(by.b, by.a), '≥ 0.85'],
    ['b/d-mem', ratio(by.b, by['d-mem']), '≥ 1.0'],
    ['b/d-pg', ratio(by.b, by['d-pg']), '≥ 1.5'],
    ['c/a', ratio(by.c, by.a), '≥ 0.5'],
    ['c/d-pg', ratio(by.c, by['d-pg']), '≥ 1.0'],
  ].map(([name, value, target]) => `| ${name} | ${value} | ${target} |`);
  return [
    `## ${started.toISOString()}`,
    '',
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; autocannon ${CONNECTIONS} connections, ` +
      `${DURATION} s after ${WARMUP} s warm-up, ${TOKENS} tokens in rotation, load generator on the same cores. ` +
      `Commit ${commit()}; load average before the run ${loadBefore.map((n) => n.toFixed(2)).join(' ')}.`,
    '',
    '| target | req/s | p50 | p99 | failed |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    '| ratio | value | target |',
    '|---|---|---|',
    ...ratios,
    '',
    ...notes.map((note) => `- ${note}`),
    '',
  ].join('\n');
}

async function main() {
  const started = new Date();
  const loadBefore = loadavg();
  build();
  const testkit = require(join(root, 'packages/testkit/dist/index.js'));
  log('starting Postgres and Redis');
  const postgres = await testkit.startLocalPostgres({ ephemeral: true });
  const redis = await testkit.startLocalRedis();
  const notes = [];
  const results = [];
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('CREATE DATABASE auth_bench');
  await admin.query('CREATE DATABASE oidc_bench');
  await admin.end();
  const dbUrl = (name) => {
    const url = new URL(postgres.url);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const run = async (key, makeTarget) => {
    if (ONLY && !ONLY.includes(key)) return;
    const target = await makeTarget();
    try {
      results.push(await measure(target));
    } finally {
      await target.stop();
    }
  };
  try {
    await run('a', async () => bareTarget(await testkit.findFreePort()));

    const hasTokenInfo = existsSync(join(root, 'services/auth-server/src/http/introspection.route.ts'));
    if (!hasTokenInfo) {
      notes.push('(b) and (c) skipped: this build of auth-server has no /token_info yet.');
    } else {
      const env = {
        DATABASE_URL: dbUrl('auth_bench'),
        REDIS_URL: redis.url,
        TOKEN_SIGNING_SECRET: secret(),
        ADMIN_TOKEN: secret(),
        LOG_LEVEL: 'warn',
      };
      // One port for both runs: the issuer (ISSUER = the base URL) stays the same for the shared tokens.
      const setup = {};
      const port = await testkit.findFreePort();
      await run('b', async () => authServerTarget('b /token_info warm cache', port, env, setup));
      // (c) must not read what (b) left in Redis: empty it first (auth-server with the cache off does not
      // read Redis either, but the figure must not depend on that).
      if (!ONLY || ONLY.includes('c')) await flushRedis(redis.url);
      await run('c', async () =>
        authServerTarget(
          'c /token_info cache off',
          port,
          {
            ...env,
            INTROSPECTION_CACHE_MAX_SECONDS: '0',
            INTROSPECTION_LOCAL_CACHE_MS: '0',
          },
          setup,
        ),
      );
    }

    await run('d-mem', async () =>
      peerTarget('d-mem oidc-provider memory', await testkit.findFreePort(), 'memory'),
    );
    const oidcDb = new pg.Client({ connectionString: dbUrl('oidc_bench') });
    await oidcDb.connect();
    await oidcDb.query(SCHEMA);
    await oidcDb.end();
    await run('d-pg', async () =>
      peerTarget(
        'd-pg oidc-provider postgres',
        await testkit.findFreePort(),
        'postgres',
        dbUrl('oidc_bench'),
      ),
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await redis.stop();
    await postgres.stop();
  }
  const section = report(results, started, notes, loadBefore);
  console.log(`\n${section}`);
  if (process.env.NO_RECORD) return;
  appendFileSync(join(root, 'bench/RESULTS.md'), `\n${section}`);
  log('appended to bench/RESULTS.md');
}

main().catch((error) => {
  for (const child of children) child.kill('SIGTERM');
  console.error(error);
  process.exit(1);
});
