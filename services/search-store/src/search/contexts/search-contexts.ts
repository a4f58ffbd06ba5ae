import { randomUUID } from 'node:crypto';
import { EsError } from '@acme/common';
import { Client, type Pool, type PoolClient } from 'pg';
import type { IndexReader } from '../../query/index-reader';
import { getClusterSettings } from '../../catalog/cluster-settings';
import { inTransaction } from '../../storage/queryable';
import {
  countLiveSearchContexts,
  deleteAllSearchContexts,
  deleteSearchContexts,
  dropSearchContext,
  findLiveSearchContext,
  insertSearchContext,
  sweepSearchContexts,
  touchSearchContext,
  type SearchContextKind,
  type KnownTotal,
  type SearchContextRow,
} from '../../storage/search-contexts.repo';
import { inSnapshot } from '../in-snapshot';
import { resolveSearchIndices } from '../search-index-resolver';
import type { SearchTarget } from '../search-target';
import { SnapshotHolders, type SnapshotHolderOptions } from './snapshot-holders';
import { contextMissing, tooManyScrollContexts } from './context-errors';

/** ES `search.max_open_scroll_context` (default 500) and `search.max_keep_alive` (default 24h). */
export const MAX_OPEN_SCROLL_CONTEXT = 'search.max_open_scroll_context';
export const DEFAULT_MAX_OPEN_SCROLL_CONTEXT = 500;
export const DEFAULT_MAX_KEEP_ALIVE_MS = 24 * 3_600_000;

export interface SearchContextsOptions extends Partial<SnapshotHolderOptions> {
  /** How often this instance frees expired contexts and ends unused holders (ES keep_alive_interval). */
  sweepMs?: number;
}

/** A snapshot Postgres refuses to import: the holder that exported it has ended (22023, 55000). */
const SNAPSHOT_GONE = new Set(['22023', '55000', '0A000']);
/** pg_export_snapshot's identifiers: hex virtual transaction id, a dash, a hex and a decimal number. */
const SNAPSHOT_ID = /^[0-9A-F]{1,16}-[0-9A-F]{1,16}-\d{1,10}$/;

/**
 * Scroll and point-in-time contexts shared by every instance on one Postgres. Opening one exports a
 * snapshot from a holder connection of this instance (snapshot-holders.ts) and writes its row
 * (storage/search-contexts.repo.ts); any instance then reads in that snapshot by importing it (SET
 * TRANSACTION SNAPSHOT) in a REPEATABLE READ transaction of its own pool, so a scroll's pages and a
 * PIT's searches see the indices as they were when it opened, documents' `_source` included, while
 * writes go on. When the owner instance dies, its holders end and their contexts answer
 * search_context_missing_exception, as ES's do when their node leaves.
 */
export class SearchContexts {
  /** This instance, as the owner of the contexts it opens. */
  readonly owner = randomUUID();
  private readonly holders: SnapshotHolders;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly sweepMs: number;

  constructor(
    private readonly pool: Pool,
    options: SearchContextsOptions = {},
    connect?: () => Promise<Client>,
  ) {
    this.sweepMs = options.sweepMs ?? 5_000;
    this.holders = new SnapshotHolders(connect ?? (() => connectLike(pool)), {
      rotateMs: options.rotateMs ?? 30_000,
      maxHolders: options.maxHolders ?? 8,
      idleTimeoutMs: options.idleTimeoutMs ?? Math.max(60_000, 4 * this.sweepMs),
    });
  }

  /** Holder connections open now. */
  get holderConnections(): number {
    return this.holders.size;
  }

  /**
   * Opens a context of the indices `target` names, as they are now. A scroll counts against
   * `search.max_open_scroll_context` (all instances together, as one node's contexts in ES).
   */
  async open(
    kind: SearchContextKind,
    target: SearchTarget,
    keepAliveMs: number,
    request: SearchContextRow['request'],
    user: string | undefined,
  ): Promise<SearchContextRow> {
    checkKeepAlive(keepAliveMs);
    // The indices must exist now (404 as a search's); the snapshot then keeps them.
    await resolveSearchIndices(this.pool, target.index, { ignoreUnavailable: target.ignoreUnavailable });
    this.startSweeping();
    const exported = await this.holders.export();
    try {
      const row: SearchContextRow = {
        id: randomUUID(),
        kind,
        snapshot: exported.snapshot,
        owner: this.owner,
        holder: exported.holder,
        owner_user: user ?? null,
        target: { index: target.index ?? null, ignoreUnavailable: target.ignoreUnavailable },
        request,
        position: null,
        keep_alive_ms: keepAliveMs,
      };
      await inTransaction(this.pool, async (db) => {
        if (kind === 'scroll') {
          // One opener at a time counts and inserts, so the cap holds under concurrent opens.
          await db.query("SELECT pg_advisory_xact_lock(hashtext('search_contexts'))");
          const settings = await getClusterSettings(db);
          const limit = Number(settings[MAX_OPEN_SCROLL_CONTEXT] ?? DEFAULT_MAX_OPEN_SCROLL_CONTEXT);
          if ((await countLiveSearchContexts(db, 'scroll')) >= limit) throw tooManyScrollContexts(limit);
        }
        await insertSearchContext(db, row);
      });
      return row;
    } finally {
      exported.release();
    }
  }

  /** The live context of that id `user` opened, or ES's search_context_missing_exception. */
  async find(id: string, kind: SearchContextKind, user: string | undefined): Promise<SearchContextRow> {
    const row = await findLiveSearchContext(this.pool, id, kind, user ?? null);
    if (!row) throw contextMissing(id);
    return row;
  }

  /** Marks a use: the keep-alive starts again, a scroll's position moves on (its count kept once known). */
  async touch(
    row: SearchContextRow,
    keepAliveMs: number | undefined,
    position?: unknown[],
    known?: KnownTotal,
  ): Promise<void> {
    if (keepAliveMs !== undefined) checkKeepAlive(keepAliveMs);
    if (!(await touchSearchContext(this.pool, row.id, keepAliveMs, position, known)))
      throw contextMissing(row.id);
  }

  /**
   * Runs `work` in the context's snapshot, on the indices it was opened on. Shard-level errors become
   * search_phase_execution_exception (it runs through search/in-snapshot.ts); a snapshot whose holder has ended
   * is a missing context (its row is dropped).
   */
  async read<T>(
    row: SearchContextRow,
    work: (client: PoolClient, readers: IndexReader[]) => Promise<T>,
    gone?: AbortSignal,
  ): Promise<T> {
    if (!SNAPSHOT_ID.test(row.snapshot)) throw contextMissing(row.id);
    const target = { index: row.target.index ?? undefined, ignoreUnavailable: row.target.ignoreUnavailable };
    return inSnapshot(this.pool, target, work, undefined, gone, async (client) => {
      try {
        // SET TRANSACTION SNAPSHOT takes no bind parameter: the identifier is checked above.
        await client.query(`SET TRANSACTION SNAPSHOT '${row.snapshot}'`);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code !== undefined && SNAPSHOT_GONE.has(code)) {
          await dropSearchContext(this.pool, row.id);
          throw contextMissing(row.id);
        }
        throw error;
      }
    });
  }

  /** Frees the contexts `user` opened by id (`all`: every one of that kind); the number freed. */
  async free(
    kind: SearchContextKind,
    ids: readonly string[] | 'all',
    user: string | undefined,
  ): Promise<number> {
    return ids === 'all'
      ? deleteAllSearchContexts(this.pool, kind, user ?? null)
      : deleteSearchContexts(this.pool, ids, kind, user ?? null);
  }

  /** Frees expired contexts and ends the holders none of this instance's live contexts need. */
  async sweep(): Promise<void> {
    await this.holders.keep(await sweepSearchContexts(this.pool, this.owner));
  }

  /** Stops sweeping and ends every holder (shutdown): this instance's contexts are gone. */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    await this.holders.close();
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => void this.sweep().catch(() => undefined), this.sweepMs);
    // The sweep alone never keeps the process up.
    this.sweeper.unref();
  }
}

/** A connection made as the pool makes its own (the same URL, statement timeout and checks). */
async function connectLike(pool: Pool): Promise<Client> {
  const client = new Client(pool.options);
  await client.connect();
  return client;
}

/** ES: a keep-alive above `search.max_keep_alive` (24h) is refused (SearchService#checkKeepAliveLimit). */
function checkKeepAlive(keepAliveMs: number): void {
  if (keepAliveMs <= DEFAULT_MAX_KEEP_ALIVE_MS) return;
  throw new EsError(
    'illegal_argument_exception',
    `Keep alive for request (${formatTime(keepAliveMs)}) is too large. It must be less than (${formatTime(DEFAULT_MAX_KEEP_ALIVE_MS)}). This limit can be set by changing the [search.max_keep_alive] cluster level setting.`,
  );
}

/** ES TimeValue#toString: the largest unit the value reaches, one decimal at most. */
export function formatTime(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  for (const [unit, size] of units) {
    if (ms >= size) {
      const value = Math.round((ms / size) * 10) / 10;
      return `${Number.isInteger(value) ? value : value.toFixed(1)}${unit}`;
    }
  }
  return `${ms}ms`;
}
