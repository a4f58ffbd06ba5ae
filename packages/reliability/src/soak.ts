import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startStack, type Stack } from './stack';
import { clientCredentialsToken, es, introspect, ndjson, setDefaultTimeout, sleep, type Reply } from './http';
import { CONSISTENT, recountIndex } from './recount';

/**
 * `node packages/reliability/dist/soak.js --minutes 10 [--rate 40]`: both services as processes on loopback,
 * mixed traffic at a fixed rate (introspection, token minting, bulk, search, updates, deletes), then checks:
 * every acknowledged write present exactly once with its last acknowledged content, acknowledged deletes gone,
 * index statistics equal a recount, zero 5xx, and each service's RSS at the end within 10% of after warm-up.
 * RSS is compared as the mean of the first minute after warm-up against the mean of the last minute.
 * Exits 1 when a check fails. Build first (npx tsc -b).
 */
interface Figures {
  requests: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  latencyMs: Record<string, number[]>;
  serverErrors: string[];
  acknowledgedWrites: number;
  acknowledgedDeletes: number;
  /** Client gave up (60 s) or the connection broke: the outcome of such a write is unknown. */
  timeouts: number;
}

function rssKb(pid: number | undefined): number {
  if (!pid) return 0;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

/** Every 10 s; windows of 60 s (6 readings) at each end. */
const SAMPLE_MS = 10_000;
const WINDOW_S = 60;

interface MemorySample {
  atSeconds: number;
  /** auth-server, search-store */
  rssKb: [number, number];
  heapUsedKb: [number, number];
}

/** V8's used heap from the service's Prometheus endpoint (prom-client's default metrics). */
async function heapUsedKb(baseUrl: string): Promise<number> {
  try {
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)/m.exec(text);
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      rate: { type: 'string', default: '40' },
      'warmup-seconds': { type: 'string' },
    },
  });
  const minutes = Number(values.minutes);
  const rate = Number(values.rate);
  if (!(minutes > 0 && minutes <= 120) || !(rate > 0 && rate <= 500))
    throw new Error('--minutes must be in (0, 120] and --rate in (0, 500]');
  const durationMs = minutes * 60_000;
  setDefaultTimeout(60_000);
  // Warm-up until the services reach their working set: auth-server's RSS, at 10 req/s of tokens and
  // introspection, climbs for ~3.5 minutes (JIT-compiled code, V8 growing its heap) and is flat after
  // (71.8 → 79.4 MB by 210 s, 78.6–79.8 MB to 360 s; idle it stays at 68–70 MB), while a heap snapshot diff
  // over a 10-minute soak shows no retained objects. So a 10-minute soak warms up for 4 minutes.
  const warmupMs = Number(values['warmup-seconds'] ?? Math.min(240, minutes * 24)) * 1000;
  const log = (line: string) =>
    process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

  log(`starting both services (${minutes} min at ${rate} req/s, warm-up ${warmupMs / 1000} s)`);
  // search-store's defaults except a short introspection cache, so introspection stays in the mix.
  const stack: Stack = await startStack({ cacheSeconds: 5, authTimeoutMs: 2000 });
  const auth = stack.auth[0]!;
  const search = stack.search[0]!;
  const figures: Figures = {
    requests: 0,
    byKind: {},
    byStatus: {},
    latencyMs: {},
    serverErrors: [],
    acknowledgedWrites: 0,
    acknowledgedDeletes: 0,
    timeouts: 0,
  };
  let failed = false;
  try {
    let bearer = `Bearer ${await clientCredentialsToken(auth.url, stack.seed.webClient)}`;
    const created = await es(search.url, bearer, 'PUT', '/soak', {
      mappings: { properties: { title: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' } } },
    });
    if (created.status !== 200) throw new Error(`create index: ${created.status} ${created.text}`);

    /** id → the n of its last acknowledged write, with its acknowledged version; deleted ids leave for good. */
    const live = new Map<string, { n: number; version: number }>();
    const deleted = new Set<string>();
    /** Ids whose last write timed out client-side: it may or may not have been applied. */
    const unknown = new Set<string>();
    const busy = new Set<string>();
    const tokens: string[] = [];
    let nextId = 0;
    let nextN = 0;
    const words = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'heron', 'iris', 'juniper'];
    const title = (n: number) => `${words[n % 10]} ${words[(n * 3) % 10]} ${words[(n * 7) % 10]} soak`;

    const record = (kind: string, reply: Reply) => {
      figures.requests++;
      figures.byKind[kind] = (figures.byKind[kind] ?? 0) + 1;
      figures.byStatus[reply.status] = (figures.byStatus[reply.status] ?? 0) + 1;
      if (reply.status === 0) figures.timeouts++;
      else if (reply.status >= 500)
        figures.serverErrors.push(`${kind} ${reply.status} ${reply.text.slice(0, 200)}`);
    };
    const pickLive = (): string | undefined => {
      if (live.size === 0) return undefined;
      const skip = Math.floor(Math.random() * Math.min(live.size, 500));
      let i = 0;
      for (const id of live.keys()) if (i++ >= skip && !busy.has(id)) return id;
      return undefined;
    };

    const actions: Array<[string, number, () => Promise<void>]> = [
      [
        'introspect',
        25,
        async () => {
          const token = tokens[Math.floor(Math.random() * tokens.length)] ?? bearer.slice(7);
          const reply = await introspect(auth.url, stack.seed.resourceServer, token);
          record('introspect', reply);
          if (reply.status === 200 && (reply.json as { active?: boolean }).active !== true)
            figures.serverErrors.push('introspection said inactive for a live token');
        },
      ],
      [
        'token',
        5,
        async () => {
          const token = await clientCredentialsToken(auth.url, stack.seed.webClient).catch(() => undefined);
          figures.requests++;
          figures.byKind.token = (figures.byKind.token ?? 0) + 1;
          if (!token) figures.serverErrors.push('client_credentials failed');
          else {
            tokens.push(token);
            if (tokens.length > 50) tokens.shift();
            bearer = `Bearer ${token}`;
          }
        },
      ],
      [
        'bulk',
        20,
        async () => {
          const docs = Array.from({ length: 20 }, () => ({ id: `d${nextId++}`, n: nextN++ }));
          docs.forEach((d) => busy.add(d.id));
          const body = ndjson(
            docs.flatMap((d) => [
              { index: { _id: d.id } },
              { title: title(d.n), tag: words[d.n % 10], n: d.n },
            ]),
          );
          const reply = await es(search.url, bearer, 'POST', '/soak/_bulk', body, 'application/x-ndjson');
          record('bulk', reply);
          if (reply.status === 0) docs.forEach((d) => unknown.add(d.id));
          if (reply.status === 200) {
            const items = (
              reply.json as { items: Array<{ index: { _id: string; status: number; _version: number } }> }
            ).items;
            docs.forEach((d, i) => {
              const item = items[i]!.index;
              if (item.status === 201 || item.status === 200) {
                live.set(d.id, { n: d.n, version: item._version });
                figures.acknowledgedWrites++;
              } else figures.serverErrors.push(`bulk item ${item.status}`);
            });
          }
          docs.forEach((d) => busy.delete(d.id));
        },
      ],
      [
        'search',
        25,
        async () => {
          const word = words[Math.floor(Math.random() * 10)]!;
          const reply = await es(search.url, bearer, 'POST', '/soak/_search', {
            query: { bool: { must: [{ match: { title: word } }], filter: [{ range: { n: { gte: 0 } } }] } },
            size: 5,
            aggs: { tags: { terms: { field: 'tag' } } },
          });
          record('search', reply);
        },
      ],
      [
        'update',
        15,
        async () => {
          const id = pickLive();
          if (!id) return;
          busy.add(id);
          const n = nextN++;
          const reply = await es(search.url, bearer, 'PUT', `/soak/_doc/${id}`, {
            title: title(n),
            tag: words[n % 10],
            n,
          });
          record('update', reply);
          if (reply.status === 0) {
            live.delete(id);
            unknown.add(id);
          }
          if (reply.status === 200) {
            live.set(id, { n, version: (reply.json as { _version: number })._version });
            figures.acknowledgedWrites++;
          }
          busy.delete(id);
        },
      ],
      [
        'delete',
        10,
        async () => {
          const id = pickLive();
          if (!id) return;
          busy.add(id);
          const reply = await es(search.url, bearer, 'DELETE', `/soak/_doc/${id}`);
          record('delete', reply);
          if (reply.status === 0) {
            live.delete(id);
            unknown.add(id);
          }
          if (reply.status === 200) {
            live.delete(id);
            deleted.add(id);
            figures.acknowledgedDeletes++;
          }
          busy.delete(id);
        },
      ],
    ];
    const totalWeight = actions.reduce((sum, [, w]) => sum + w, 0);
    const pick = () => {
      let r = Math.random() * totalWeight;
      for (const action of actions) if ((r -= action[1]) < 0) return action;
      return actions[0]!;
    };

    const started = Date.now();
    let inFlight = 0;
    let skipped = 0;
    let warmRss: [number, number] | undefined;
    let ticks = 0;
    const pending = new Set<Promise<void>>();
    // RSS is read every SAMPLE_MS: one reading moves by ±10% with the garbage collector's timing, so the
    // check compares the mean of the first window after warm-up with the mean of the last window.
    const memory: MemorySample[] = [];
    let lastSample = 0;
    const sampleMemory = async (atMs: number): Promise<MemorySample> => ({
      atSeconds: Math.round(atMs / 1000),
      rssKb: [rssKb(auth.pid()), rssKb(search.pid())],
      heapUsedKb: await Promise.all([heapUsedKb(auth.url), heapUsedKb(search.url)]),
    });
    while (Date.now() - started < durationMs) {
      const due = started + (ticks * 1000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      ticks++;
      if (inFlight >= 64) {
        skipped++; // bounded concurrency: a stalled server shows up as skipped ticks, not unbounded memory
        continue;
      }
      const [kind, , run] = pick();
      inFlight++;
      const t0 = Date.now();
      const p: Promise<void> = run()
        .then(() => void (figures.latencyMs[kind] ??= []).push(Date.now() - t0))
        .catch((error: unknown) => void figures.serverErrors.push(`client error ${String(error)}`))
        .finally(() => {
          inFlight--;
          pending.delete(p);
        });
      pending.add(p);
      if (!warmRss && Date.now() - started >= warmupMs) {
        warmRss = [rssKb(auth.pid()), rssKb(search.pid())];
        log(`warm-up done: RSS auth-server ${warmRss[0]} kB, search-store ${warmRss[1]} kB`);
      }
      if (Date.now() - lastSample >= SAMPLE_MS) {
        lastSample = Date.now();
        void sampleMemory(lastSample - started).then((sample) => memory.push(sample));
      }
      if (ticks % (rate * 30) === 0)
        log(
          `${figures.requests} requests, ${live.size} live docs, ${figures.serverErrors.length} server errors`,
        );
    }
    await Promise.all(pending);
    const endRss: [number, number] = [rssKb(auth.pid()), rssKb(search.pid())];
    warmRss ??= endRss;

    // Every acknowledged write present exactly once with its last acknowledged content; deletes gone.
    await es(search.url, bearer, 'POST', '/soak/_refresh');
    // (search-store has no _mget yet: one GET per document, 16 at a time)
    const fetchAll = async (ids: string[], each: (id: string, reply: Reply) => void) => {
      for (let i = 0; i < ids.length; i += 16)
        await Promise.all(
          ids
            .slice(i, i + 16)
            .map(async (id) => each(id, await es(search.url, bearer, 'GET', `/soak/_doc/${id}`))),
        );
    };
    let missing = 0;
    let wrong = 0;
    await fetchAll([...live.keys()], (id, reply) => {
      const doc = reply.json as { found?: boolean; _version?: number; _source?: { n: number } } | undefined;
      const expected = live.get(id)!;
      if (reply.status !== 200 || !doc?.found) missing++;
      else if (doc._source?.n !== expected.n || doc._version !== expected.version) wrong++;
    });
    let resurrected = 0;
    await fetchAll([...deleted], (_id, reply) => {
      if (reply.status !== 404) resurrected++;
    });
    let unknownStored = 0;
    await fetchAll([...unknown], (_id, reply) => {
      if (reply.status === 200) unknownStored++;
    });
    const count = ((await es(search.url, bearer, 'GET', '/soak/_count')).json as { count: number }).count;
    const recount = await recountIndex(stack.databaseUrl, 'soak', 'title');
    const windowMean = (from: number, to: number, service: 0 | 1): number | undefined => {
      const inWindow = memory.filter((m) => m.atSeconds >= from && m.atSeconds < to);
      return inWindow.length === 0
        ? undefined
        : inWindow.reduce((sum, m) => sum + m.rssKb[service], 0) / inWindow.length;
    };
    const warmS = warmupMs / 1000;
    const endS = durationMs / 1000;
    const windowS = Math.min(WINDOW_S, (endS - warmS) / 2);
    const rssWindows = ([0, 1] as const).map((service) => ({
      afterWarmup: windowMean(warmS, warmS + windowS, service) ?? warmRss![service]!,
      end: windowMean(endS - windowS, endS + 1, service) ?? endRss[service]!,
    }));
    const rssGrowth = rssWindows.map((w) => (w.end - w.afterWarmup) / w.afterWarmup);

    const checks: Array<[string, boolean]> = [
      ['acknowledged writes lost', missing === 0],
      ['acknowledged writes with other content', wrong === 0],
      ['acknowledged deletes present again', resurrected === 0],
      ['_count equals the live documents (each exactly once)', count === live.size + unknownStored],
      ['statistics equal a recount', JSON.stringify(recount) === JSON.stringify(CONSISTENT)],
      ['zero 5xx', figures.serverErrors.length === 0],
      ['RSS at the end within 10% of after warm-up (window means)', rssGrowth.every((g) => g <= 0.1)],
    ];
    const report = {
      command: `node packages/reliability/dist/soak.js --minutes ${minutes} --rate ${rate}`,
      durationSeconds: Math.round((Date.now() - started) / 1000),
      requestsServed: figures.requests,
      skippedTicks: skipped,
      byKind: figures.byKind,
      byStatus: figures.byStatus,
      latencyMs: Object.fromEntries(
        Object.entries(figures.latencyMs).map(([kind, list]) => {
          const sorted = [...list].sort((a, b) => a - b);
          const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
          return [kind, { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 }];
        }),
      ),
      acknowledgedWrites: figures.acknowledgedWrites,
      acknowledgedDeletes: figures.acknowledgedDeletes,
      liveDocuments: live.size,
      countReported: count,
      acknowledgedWritesLost: missing,
      wrongContent: wrong,
      resurrected,
      recount,
      serverErrors: figures.serverErrors.slice(0, 20),
      serverErrorCount: figures.serverErrors.length,
      clientTimeouts: figures.timeouts,
      writesWithUnknownOutcome: unknown.size,
      unknownOutcomeStored: unknownStored,
      rssKb: {
        afterWarmup: { auth: warmRss[0], search: warmRss[1] },
        end: { auth: endRss[0], search: endRss[1] },
      },
      rssWindowMeanKb: {
        windowSeconds: windowS,
        afterWarmup: {
          auth: Math.round(rssWindows[0]!.afterWarmup),
          search: Math.round(rssWindows[1]!.afterWarmup),
        },
        end: { auth: Math.round(rssWindows[0]!.end), search: Math.round(rssWindows[1]!.end) },
      },
      memorySamples: memory.map(
        (m) => `${m.atSeconds}s rss ${m.rssKb.join('/')} heap ${m.heapUsedKb.join('/')}`,
      ),
      rssGrowthPercent: rssGrowth.map((g) => Math.round(g * 1000) / 10),
      checks: Object.fromEntries(checks.map(([name, ok]) => [name, ok ? 'pass' : 'FAIL'])),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    failed = checks.some(([, ok]) => !ok);
  } finally {
    await stack.stop();
  }
  process.exit(failed ? 1 : 0);
}

void main().catch((error: unknown) => {
  process.stderr.write(
    `soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
