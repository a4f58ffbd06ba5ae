/**
 * RFC 7523 §3 item 7: a client assertion's `jti` is used once. Implemented by
 * storage/assertion-jti.store.ts (Redis when configured, else in process).
 */
export interface AssertionJtiStore {
  /** True the first time `key` is claimed within `ttlSeconds`; false for a replay. */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
  /** True when `key` was claimed and has not expired (a look only: claiming is what decides). */
  used(key: string): Promise<boolean>;
}
