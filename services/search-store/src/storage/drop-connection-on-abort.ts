import type { PoolClient } from 'pg';

export interface ConnectionGuard {
  /** True once the signal fired and the connection was destroyed: do not release the client again. */
  readonly dropped: boolean;
  /** Stops listening; call before releasing the client. */
  done(): void;
}

/**
 * Destroys `client`'s connection when `signal` fires. Its running statement fails at once and any
 * statement after it cannot start; Postgres notices the closed socket and stops the backend within
 * client_connection_check_interval (packages/common createPgPool), where it would otherwise run the
 * statement to its end. The pool opens a new connection in its place.
 */
export function dropConnectionOnAbort(client: PoolClient, signal: AbortSignal | undefined): ConnectionGuard {
  let dropped = false;
  const drop = () => {
    dropped = true;
    client.release(new Error('client gone'));
  };
  if (signal?.aborted) drop();
  else signal?.addEventListener('abort', drop, { once: true });
  return {
    get dropped() {
      return dropped;
    },
    done: () => signal?.removeEventListener('abort', drop),
  };
}
