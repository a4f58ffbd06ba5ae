/**
 * Sealed token responses of recent refresh rotations, keyed by the rotated token's hash: a retry within
 * REFRESH_REUSE_GRACE_SECONDS gets the winner's response. Implemented by storage/refresh-replays.repo.ts.
 */
export interface RefreshReplaysRepo {
  save(tokenHash: Buffer, sealed: Buffer, ttlSeconds: number): Promise<void>;
  deleteExpired(): Promise<number>;
  /** The sealed response while it is within its window. */
  find(tokenHash: Buffer): Promise<Buffer | undefined>;
}
