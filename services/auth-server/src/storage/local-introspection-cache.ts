import type { IntrospectionResponse } from '@acme/common';

interface Entry {
  value: IntrospectionResponse;
  expiresAt: number;
}

interface Views {
  byRs: Map<string, Entry>;
  /** The latest expiry of its views: the whole record is garbage from then on. */
  expiresAt: number;
}

/** Records the sweep looks at per write: more than one, so it outpaces insertion and the map stays near the live set. */
const SWEEP_PER_SET = 4;

/**
 * The in-process layer: token hash → (resource server → result). A tombstone per revoked hash keeps a
 * lookup that read Postgres before the revocation from writing a stale result afterwards.
 *
 * Memory follows the live tokens, not the tokens ever seen: every write also looks at the oldest few
 * records (Map iteration is insertion order) and drops the expired ones, moving live ones to the back,
 * so a steady stream of new tokens leaves no expired entries behind. Tombstones all live `tombstoneMs`
 * and are kept in the order they were set, so the expired ones are always at the front.
 */
export class LocalIntrospectionCache {
  private readonly entries = new Map<string, Views>();
  private readonly tombstones = new Map<string, number>();

  constructor(
    private readonly maxEntries = 100_000,
    private readonly tombstoneMs = 60_000,
  ) {}

  get(hash: string, rsId: string, now = Date.now()): IntrospectionResponse | undefined {
    const entry = this.entries.get(hash)?.byRs.get(rsId);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.get(hash)?.byRs.delete(rsId);
      return undefined;
    }
    return entry.value;
  }

  set(hash: string, rsId: string, value: IntrospectionResponse, ttlMs: number, now = Date.now()): void {
    if (ttlMs <= 0) return;
    this.sweep(now);
    const tombstone = this.tombstones.get(hash);
    if (tombstone !== undefined && tombstone > now) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear(); // a burst of live tokens: cheap to rebuild
    let views = this.entries.get(hash);
    if (!views) this.entries.set(hash, (views = { byRs: new Map(), expiresAt: 0 }));
    const expiresAt = now + ttlMs;
    views.byRs.set(rsId, { value, expiresAt });
    views.expiresAt = Math.max(views.expiresAt, expiresAt);
  }

  invalidate(hashes: string[], now = Date.now()): void {
    for (const hash of hashes) {
      this.entries.delete(hash);
      this.tombstones.delete(hash); // re-inserted at the back, keeping the map in expiry order
      this.tombstones.set(hash, now + this.tombstoneMs);
    }
    for (const [hash, until] of this.tombstones) {
      if (until > now) break;
      this.tombstones.delete(hash);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  /** Records and tombstones held now (for tests and the memory bound). */
  get size(): { entries: number; tombstones: number } {
    return { entries: this.entries.size, tombstones: this.tombstones.size };
  }

  private sweep(now: number): void {
    let looked = 0;
    for (const [hash, views] of this.entries) {
      if (looked++ >= SWEEP_PER_SET) break;
      this.entries.delete(hash);
      if (views.expiresAt > now) this.entries.set(hash, views); // still live: to the back of the line
    }
  }
}
