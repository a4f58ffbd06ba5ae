import type { ServerResponse } from 'node:http';
import type { PoolClient } from 'pg';
import { EsError } from '@acme/common';

/**
 * Fires when the client goes away before its response was written. Elasticsearch cancels a search whose
 * HTTP channel closed (RestCancellableNodeClient); so do we, instead of finishing work nobody will read.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  const check = () => {
    if (!res.writableFinished) controller.abort();
  };
  if (res.closed) check();
  else res.once('close', check);
  return controller.signal;
}

/** What Elasticsearch's cancelled task reports (TaskCancelledException, 400); no client reads it. */
export function taskCancelled(): EsError {
  return new EsError('task_cancelled_exception', 'task cancelled [http channel closed]');
}

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
