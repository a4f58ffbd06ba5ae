import type { IntrospectionResponse } from '@acme/common';

/**
 * Cached introspection answers per token hash and resource server (RFC 7009 §2.1: a revocation purges
 * them at once). Implemented by storage/introspection-cache.store.ts.
 */
export interface IntrospectionCache {
  get(hash: Buffer, rsId: string): Promise<IntrospectionResponse | undefined>;
  set(hash: Buffer, rsId: string, value: IntrospectionResponse, ttlSeconds: number): Promise<void>;
  /** Drops every entry of these token hashes here, in Redis, and (pub/sub) on every other instance. */
  invalidate(hashes: Buffer[]): Promise<void>;
}
