import type { IntrospectionResponse } from '@acme/common';

interface Entry {
  value: IntrospectionResponse;
  expiresAt: number;
}

/**
 * The in-process layer: token hash → (resource server → result). Bounded; a tombstone per revoked hash
 * keeps a lookup that read Postgres before the revocation from writing a stale result afterwards.
 */
export class LocalIntrospectionCache {
  private readonly entries = new Map<string, Map<string, Entry>>();
  private readonly tombstones = new Map<string, number>();

  constructor(
    private readonly maxEntries = 100_000,
    private readonly tombstoneMs = 60_000,
  ) {}

  get(hash: string, rsId: string, now = Date.now()): IntrospectionResponse | undefined {
    const entry = this.entries.get(hash)?.get(rsId);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.get(hash)?.delete(rsId);
      return undefined;
    }
    return entry.value;
  }

  set(hash: string, rsId: string, value: IntrospectionResponse, ttlMs: number, now = Date.now()): void {
    if (ttlMs <= 0) return;
    const tombstone = this.tombstones.get(hash);
    if (tombstone !== undefined && tombstone > now) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear(); // crude bound; entries are cheap to rebuild
    let perRs = this.entries.get(hash);
    if (!perRs) this.entries.set(hash, (perRs = new Map()));
    perRs.set(rsId, { value, expiresAt: now + ttlMs });
  }

  invalidate(hashes: string[], now = Date.now()): void {
    for (const hash of hashes) {
      this.entries.delete(hash);
      this.tombstones.set(hash, now + this.tombstoneMs);
    }
    if (this.tombstones.size > this.maxEntries) {
      for (const [hash, until] of this.tombstones) if (until <= now) this.tombstones.delete(hash);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
