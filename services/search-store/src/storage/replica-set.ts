import type { Pool } from 'pg';
import type { Logger } from '@acme/common';

/** The pools a search runs on: a replica's, or the primary's when none may serve it. */
export interface ReadPools {
  pool: Pool;
  fastPool?: Pool;
}

export interface Replica extends ReadPools {
  /** Names it in /ready and logs (`replica_1`…): never its URL, which may carry a password. */
  name: string;
  /** One connection for the freshness probe, apart from the searches'. */
  probe: Pool;
}

export interface ReplicaSetOptions {
  /** The primary's pool: heartbeats and the write's WAL position. */
  primary: Pool;
  replicas: Replica[];
  /**
   * How far behind the primary a replica may serve searches, and so the longest a `refresh` write
   * waits for a replica (REPLICA_MAX_LAG_MS).
   */
  maxLagMs: number;
  /** How often the primary commits a heartbeat, so an idle primary does not make replicas look stale. */
  heartbeatMs: number;
  logger?: Logger;
  /** Tests: a shorter probe period. */
  probeEveryMs?: number;
}

interface ReplicaState {
  /** When the last successful probe was sent (ms, this process's clock); 0 before any. */
  probedAt: number;
  /** The replica's own measure of how far behind it was at that probe (ms), Infinity when unknown. */
  lagMs: number;
  /** pg_last_wal_replay_lsn() at that probe. */
  replayed: bigint;
  /** The last probe failed (connection refused, not a standby any more…). */
  down: boolean;
  inFlight: boolean;
}

interface Waiter {
  lsn: bigint;
  done: () => void;
}

/** `16/B374D848` → a comparable number (pg_lsn is two 32-bit halves). */
export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi ?? '0'}`) << 32n) | BigInt(`0x${lo ?? '0'}`);
}

/**
 * Searches on Postgres streaming replicas, writes on the primary (issue 23), with read-your-writes
 * across instances after `refresh`:
 *
 * - A search may use a replica only if a probe sent at most `probeEveryMs` (t) ago found it at most
 *   `maxLagMs - t` behind (its clock minus the commit time of the last transaction it replayed,
 *   pg_last_xact_replay_timestamp; the primary commits a heartbeat every `heartbeatMs`, so an idle
 *   primary does not age its replicas). Else the primary answers.
 * - A write with `refresh=true|wait_for` commits, reads the primary's WAL position, and waits until
 *   every replica has replayed it or `maxLagMs` have passed since the commit.
 *
 * Why that holds across instances: if a replica has not replayed a write acknowledged at time A
 * (committed at T0 ≤ A − maxLagMs), every transaction it replayed committed before T0, so at any later
 * probe it is more than maxLagMs − t behind, and no instance sends it a search until it has caught up.
 * The argument compares the replica's clock with the primary's commit timestamps: the two machines'
 * clocks must agree (NTP) to well within maxLagMs. A lagging or lost replica is skipped, never waited
 * for longer than maxLagMs, and /ready reports it (as optional: the primary still serves).
 */
export class ReplicaSet {
  private readonly states: ReplicaState[];
  private readonly waiters: Waiter[][];
  private readonly probeEveryMs: number;
  private next = 0;
  private timers: NodeJS.Timeout[] = [];
  private heartbeat?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: ReplicaSetOptions) {
    this.states = options.replicas.map(() => ({
      probedAt: 0,
      lagMs: Infinity,
      replayed: 0n,
      down: false,
      inFlight: false,
    }));
    this.waiters = options.replicas.map(() => []);
    this.probeEveryMs = options.probeEveryMs ?? Math.max(10, Math.min(100, options.maxLagMs / 4));
  }

  get size(): number {
    return this.options.replicas.length;
  }

  /** Every pool the set opened (main.ts attaches its error listeners to them). */
  pools(): Pool[] {
    return this.options.replicas.flatMap((r) =>
      r.fastPool ? [r.pool, r.fastPool, r.probe] : [r.pool, r.probe],
    );
  }

  /** Starts the heartbeat and the probes (main.ts; tests). */
  start(): this {
    if (this.size === 0) return this;
    const beat = () => {
      this.options.primary
        .query('UPDATE search_replica_heartbeat SET beat_at = clock_timestamp() WHERE id = 1')
        .catch((error: Error) =>
          this.options.logger?.warn('replica heartbeat failed', { error: error.message }),
        );
    };
    beat();
    this.heartbeat = setInterval(beat, this.options.heartbeatMs);
    this.heartbeat.unref();
    this.options.replicas.forEach((_, i) => this.schedule(i, 0));
    return this;
  }

  /** A replica fresh enough to serve a search now, round robin; undefined: use the primary. */
  pick(): Replica | undefined {
    const now = Date.now();
    for (let tried = 0; tried < this.size; tried++) {
      const i = (this.next + tried) % this.size;
      if (this.usable(i, now)) {
        this.next = (i + 1) % this.size;
        return this.options.replicas[i];
      }
    }
    return undefined;
  }

  /** A search failed on the replica in a way the primary may not (lost connection, recovery conflict). */
  markDown(replica: Replica): void {
    const i = this.options.replicas.indexOf(replica);
    const state = this.states[i];
    if (state) state.down = true;
  }

  /**
   * After a `refresh` write committed: waits until every replica replayed the primary's current WAL
   * position, or `maxLagMs` from now (the commit is before now).
   */
  async awaitReplay(): Promise<void> {
    if (this.size === 0) return;
    // The insert position, not pg_current_wal_lsn (the write position): with synchronous_commit off
    // the commit record may still sit in the WAL buffers, behind the write position.
    const { rows } = await this.options.primary.query<{ lsn: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    const lsn = parseLsn(rows[0]?.lsn ?? '0/0');
    const deadline = this.options.maxLagMs;
    await Promise.all(
      this.options.replicas.map(
        (_, i) =>
          new Promise<void>((resolve) => {
            if ((this.states[i]?.replayed ?? 0n) >= lsn) return resolve();
            const timer = setTimeout(finish, deadline);
            const waiter: Waiter = { lsn, done: finish };
            function finish(): void {
              clearTimeout(timer);
              resolve();
            }
            this.waiters[i]?.push(waiter);
            this.schedule(i, 0);
          }),
      ),
    );
    // Waiters that timed out stay listed until the next probe drops them: harmless, resolve is idempotent.
  }

  /** /ready checks, one per replica: each throws while its replica may not serve searches. */
  readinessChecks(): Record<string, () => Promise<void>> {
    const checks: Record<string, () => Promise<void>> = Object.create(null) as Record<
      string,
      () => Promise<void>
    >;
    this.options.replicas.forEach((replica, i) => {
      checks[replica.name] = () => {
        if (this.usable(i, Date.now())) return Promise.resolve();
        const state = this.states[i];
        return Promise.reject(new Error(state?.down ? 'unreachable' : `lagging ${String(state?.lagMs)} ms`));
      };
    });
    return checks;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const timer of this.timers) clearTimeout(timer);
    for (const list of this.waiters) for (const waiter of list.splice(0)) waiter.done();
    await Promise.all(this.options.replicas.flatMap((r) => [r.pool.end(), r.fastPool?.end(), r.probe.end()]));
  }

  private usable(i: number, now: number): boolean {
    const state = this.states[i];
    if (!state || state.down || state.probedAt === 0) return false;
    const age = now - state.probedAt;
    return age <= this.probeEveryMs && state.lagMs <= this.options.maxLagMs - this.probeEveryMs;
  }

  /** Probes replica i after `delayMs`: every probeEveryMs/2, every 5 ms while a write waits for it. */
  private schedule(i: number, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer);
      void this.probe(i);
    }, delayMs);
    timer.unref();
    this.timers.push(timer);
  }

  private async probe(i: number): Promise<void> {
    const state = this.states[i];
    const replica = this.options.replicas[i];
    if (!state || !replica || state.inFlight || this.closed) return;
    state.inFlight = true;
    const sentAt = Date.now();
    try {
      const { rows } = await replica.probe.query<{
        standby: boolean;
        lag_ms: number | null;
        replayed: string | null;
      }>(
        `SELECT pg_is_in_recovery() AS standby,
                (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS lag_ms,
                pg_last_wal_replay_lsn()::text AS replayed`,
      );
      const row = rows[0];
      // A promoted replica has left the primary's timeline: never read from it.
      const standby = row?.standby === true && row.replayed !== null;
      if (state.down && standby) this.options.logger?.info('replica back', { replica: replica.name });
      state.down = !standby;
      state.probedAt = sentAt;
      state.lagMs = standby && row.lag_ms !== null ? row.lag_ms : Infinity;
      state.replayed = standby && row.replayed !== null ? parseLsn(row.replayed) : 0n;
    } catch (error) {
      if (!state.down) {
        this.options.logger?.warn('replica unreachable', {
          replica: replica.name,
          error: (error as Error).message,
        });
      }
      state.down = true;
    } finally {
      state.inFlight = false;
    }
    const waiting = this.waiters[i] ?? [];
    const pending = waiting.filter((w) => {
      if (w.lsn <= state.replayed) w.done();
      return w.lsn > state.replayed;
    });
    waiting.splice(0, waiting.length, ...pending);
    this.schedule(i, pending.length > 0 ? 5 : Math.max(5, this.probeEveryMs / 2));
  }
}

/** Errors a replica gives that the primary would not: search again there. */
export function isReplicaFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  // 40001 + "conflict with recovery"; 57P0x: the server shut down or restarted; 08xxx: connection.
  return (
    (code === '40001' && /conflict with recovery/.test((error as Error).message)) ||
    code.startsWith('57P0') ||
    code.startsWith('08') ||
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code)
  );
}
