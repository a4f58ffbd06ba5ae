import { revocationEventSchema } from '../schemas/revocation-event.schema';
import { formatClientBasic } from './authorization-header';
import type { IntrospectionClient } from './introspection-client';

/**
 * The resource server's side of auth-server's revocation push (GET /revocations/stream, Server-Sent
 * Events): a revoked token's cached introspection answer is dropped at once instead of living until its
 * cache bound. Rules:
 * - the same Basic credentials as introspection (RFC 7662 §2.1 → RFC 6749 §2.3.1);
 * - on every (re)connect the whole cache is cleared: events sent while we were away are lost;
 * - `event: revocation` drops what it names; `event: resync` (auth-server's fan-out was down) clears all;
 * - no byte for idleTimeoutMs (heartbeats come every 15 s) means a dead connection: reconnect;
 * - reconnects back off exponentially with jitter, from minBackoffMs to maxBackoffMs;
 * - while disconnected nothing changes: answers stay cached within their bound (exp and the maximum).
 */
export interface RevocationSubscriptionOptions {
  authServerUrl: string;
  clientId: string;
  clientSecret: string;
  /** The cache to keep honest. */
  client: Pick<IntrospectionClient, 'dropRevoked' | 'clear'>;
  /** Default 500 ms. */
  minBackoffMs?: number;
  /** Default 30,000 ms. */
  maxBackoffMs?: number;
  /** Default 45,000 ms (three missed heartbeats). */
  idleTimeoutMs?: number;
  /** Told of every change: connected, or disconnected with the reason (for logs and metrics). */
  onStateChange?: (state: RevocationStreamState) => void;
  fetch?: typeof fetch;
}

export type RevocationStreamState =
  { connected: true } | { connected: false; reason: string; retryInMs: number };

export interface RevocationSubscription {
  readonly connected: boolean;
  /** Events applied since start (for tests and metrics). */
  readonly eventsApplied: number;
  close(): void;
}

export function subscribeRevocations(options: RevocationSubscriptionOptions): RevocationSubscription {
  const url = `${options.authServerUrl.replace(/\/+$/, '')}/revocations/stream`;
  const authorization = formatClientBasic(options.clientId, options.clientSecret);
  const doFetch = options.fetch ?? fetch;
  const minBackoff = options.minBackoffMs ?? 500;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  const idleTimeout = options.idleTimeoutMs ?? 45_000;
  let connected = false;
  let closed = false;
  let failures = 0;
  let eventsApplied = 0;
  let controller: AbortController | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  const apply = (event: string, data: string) => {
    if (event === 'resync') {
      options.client.clear();
      eventsApplied += 1;
      return;
    }
    if (event !== 'revocation') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    const revoked = revocationEventSchema.safeParse(parsed);
    if (!revoked.success) return;
    options.client.dropRevoked(revoked.data);
    eventsApplied += 1;
  };

  async function connectOnce(): Promise<string> {
    controller = new AbortController();
    const abort = controller;
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(new Error('idle')), idleTimeout);
      idle.unref?.();
    };
    try {
      touch();
      const response = await doFetch(url, {
        headers: { authorization, accept: 'text/event-stream' },
        signal: abort.signal,
      });
      if (response.status !== 200 || !response.body) {
        await response.arrayBuffer().catch(() => undefined);
        return response.status === 401
          ? 'credentials rejected (401)'
          : `auth server answered ${response.status}`;
      }
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        await response.body.cancel().catch(() => undefined);
        return 'auth server did not answer with an event stream';
      }
      // Connected: whatever happened while we were away is unknown, so nothing cached is trusted.
      options.client.clear();
      connected = true;
      failures = 0;
      options.onStateChange?.({ connected: true });
      await readEvents(response.body, touch);
      return 'stream ended';
    } catch (error) {
      if (closed) return 'closed';
      if (
        abort.signal.aborted &&
        abort.signal.reason instanceof Error &&
        abort.signal.reason.message === 'idle'
      )
        return `no data for ${idleTimeout} ms`;
      return `auth server unreachable (${error instanceof Error ? error.message : String(error)})`;
    } finally {
      clearTimeout(idle);
    }
  }

  /** WHATWG HTML §9.2.6: lines end in LF, CR or CRLF; a blank line dispatches; ':' starts a comment. */
  async function readEvents(body: ReadableStream<Uint8Array>, touch: () => void): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let event = '';
    let data: string[] = [];
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      touch();
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (data.length) apply(event || 'message', data.join('\n'));
          event = '';
          data = [];
        } else if (line.startsWith(':')) continue;
        else {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
      }
    }
  }

  async function run(): Promise<void> {
    while (!closed) {
      const reason = await connectOnce();
      if (closed) return;
      connected = false;
      failures += 1;
      const ceiling = Math.min(maxBackoff, minBackoff * 2 ** Math.min(failures - 1, 20));
      const retryInMs = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
      options.onStateChange?.({ connected: false, reason, retryInMs });
      await new Promise<void>((resolve) => {
        retryTimer = setTimeout(resolve, retryInMs);
      });
    }
  }
  void run();

  return {
    get connected() {
      return connected;
    },
    get eventsApplied() {
      return eventsApplied;
    },
    close() {
      closed = true;
      connected = false;
      clearTimeout(retryTimer);
      controller?.abort();
    },
  };
}
