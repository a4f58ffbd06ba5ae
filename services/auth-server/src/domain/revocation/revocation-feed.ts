/**
 * What resource servers are told when access tokens stop being valid (issue 7, "revocation push"):
 * the `jti` of every revoked access token, as /token_info exposes it, and, for a user- or client-wide
 * revocation, the `sub` and/or `client_id` it covered, so a subscriber may also drop what it matches.
 */
export interface RevocationEvent {
  jti: string[];
  sub?: string;
  client_id?: string;
  reason: string;
}

export type RevocationMessage =
  | { type: 'revocation'; event: RevocationEvent }
  /** Events may have been missed (this instance lost its fan-out): subscribers must start over. */
  | { type: 'resync' }
  /** This instance is stopping: streams end so subscribers reconnect elsewhere at once. */
  | { type: 'shutdown' };

/**
 * The fan-out of revocation events to every instance's stream subscribers. `publish` never throws and
 * never delays a revocation: the cache bound at resource servers is the fallback when a push is lost.
 */
export interface RevocationFeed {
  publish(event: RevocationEvent): void;
  subscribe(listener: (message: RevocationMessage) => void): () => void;
  readonly subscribers: number;
  /** Ends every subscriber's stream (graceful shutdown: open streams would hold server.close()). */
  close(): void;
}

/** One process, no fan-out (no Redis): every subscriber of this instance hears every event. */
export function createLocalRevocationFeed(): RevocationFeed & {
  deliver(message: RevocationMessage): void;
} {
  const listeners = new Set<(message: RevocationMessage) => void>();
  const deliver = (message: RevocationMessage) => {
    for (const listener of listeners) listener(message);
  };
  return {
    deliver,
    publish: (event) => deliver({ type: 'revocation', event }),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get subscribers() {
      return listeners.size;
    },
    close() {
      deliver({ type: 'shutdown' });
      listeners.clear();
    },
  };
}
