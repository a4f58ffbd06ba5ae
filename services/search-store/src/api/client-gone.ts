import type { ServerResponse } from 'node:http';

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
