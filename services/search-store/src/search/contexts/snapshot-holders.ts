import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';

/** How an instance keeps the snapshots its scroll and PIT contexts read. */
export interface SnapshotHolderOptions {
  /** A holder takes new contexts for this long, then a newer one does (so old snapshots can end). */
  rotateMs: number;
  /** Most holder connections of this instance; past it the newest holder takes every new context. */
  maxHolders: number;
  /**
   * Postgres ends a holder idle in its transaction for this long: the sweep touches every live holder
   * more often than that, so only an instance that stopped sweeping (hung, partitioned) loses them.
   */
  idleTimeoutMs: number;
}

interface Holder {
  id: string;
  client: Client;
  openedAt: number;
  /** Exports in flight: the sweep must not end the holder before their rows are written. */
  pending: number;
  ended: boolean;
}

/**
 * The holder connections of one instance. A holder is one connection in a READ COMMITTED READ ONLY
 * transaction; each `pg_export_snapshot()` in it exports the snapshot of that statement, and Postgres
 * keeps every snapshot a transaction exported importable (and its rows unvacuumed) until the
 * transaction ends (snapmgr.c, ExportSnapshot). So one connection serves many contexts opened at
 * different moments: holders are few (rotated every `rotateMs`, at most `maxHolders`), not one
 * connection per context, and they never come out of the request pools.
 */
export class SnapshotHolders {
  private readonly holders: Holder[] = [];

  constructor(
    private readonly connect: () => Promise<Client>,
    private readonly options: SnapshotHolderOptions,
  ) {}

  /** Exports a snapshot of now: the holder that keeps it and the snapshot's identifier. */
  async export(): Promise<{ holder: string; snapshot: string; release: () => void }> {
    const holder = await this.current();
    holder.pending += 1;
    let released = false;
    const release = () => {
      if (!released) holder.pending -= 1;
      released = true;
    };
    try {
      const { rows } = await holder.client.query<{ snapshot: string }>(
        'SELECT pg_export_snapshot() AS snapshot',
      );
      return { holder: holder.id, snapshot: rows[0]!.snapshot, release };
    } catch (error) {
      release();
      void this.end(holder);
      throw error;
    }
  }

  /** The sweep: ends the holders no live context uses, touches the others (their idle timeout). */
  async keep(live: ReadonlySet<string>): Promise<void> {
    for (const holder of [...this.holders]) {
      if (holder.ended) continue;
      if (!live.has(holder.id) && holder.pending === 0) {
        this.end(holder);
        continue;
      }
      await this.touch(holder).catch(() => this.end(holder));
    }
  }

  /** Live holder connections (tests, metrics). */
  get size(): number {
    return this.holders.filter((h) => !h.ended).length;
  }

  /** Ends every holder: their contexts are gone, as a node's are when it stops. */
  async close(): Promise<void> {
    await Promise.all(this.holders.map((holder) => this.end(holder)));
  }

  private async current(): Promise<Holder> {
    const open = this.holders.filter((h) => !h.ended);
    const newest = open.at(-1);
    if (
      newest &&
      (Date.now() - newest.openedAt < this.options.rotateMs || open.length >= this.options.maxHolders)
    )
      return newest;
    const client = await this.connect();
    const holder: Holder = { id: randomUUID(), client, openedAt: Date.now(), pending: 0, ended: false };
    // A lost holder connection emits 'error' on the client; its contexts then answer "missing".
    client.on('error', () => void this.end(holder));
    try {
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY');
      await this.touch(holder);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.holders.push(holder);
    return holder;
  }

  private async touch(holder: Holder): Promise<void> {
    // SET LOCAL cannot take a bind parameter; the value is a number of our own configuration.
    const ms = Math.max(1000, Math.trunc(this.options.idleTimeoutMs));
    await holder.client.query(`SET LOCAL idle_in_transaction_session_timeout = ${ms}`);
  }

  private async end(holder: Holder): Promise<void> {
    if (holder.ended) return;
    holder.ended = true;
    this.holders.splice(this.holders.indexOf(holder), 1);
    // Ending the connection ends its transaction and every snapshot it exported.
    await holder.client.end().catch(() => undefined);
  }
}
