import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../logging/create-logger';

/** How long closing pools and Redis may take after the drain before the process exits anyway. */
const RELEASE_BOUND_MS = 2000;

export interface DrainHooks {
  /** Ends long-lived responses (event streams) that would otherwise hold the drain open to its timeout. */
  beforeDrain?: () => void;
  /** Closes what requests used (Postgres pools, Redis), once the last response is out or the drain was forced. */
  release: () => Promise<unknown>;
}

export interface GracefulShutdown {
  /** True from the first signal on: /ready answers 503 so load balancers stop routing here. */
  readonly draining: boolean;
  /** Tracks the server's in-flight responses; call once, right after listen. */
  attach(server: Server, hooks: DrainHooks): void;
  /**
   * Drains: stops accepting connections, lets in-flight requests finish with `Connection: close`,
   * then releases. Resolves 0 after a clean drain, 1 when the timeout (or a second call) forced it.
   */
  drain(reason: string): Promise<number>;
}

/**
 * One shutdown for both services (issue 17). An orchestrator sends SIGTERM and, after its grace period,
 * SIGKILL: everything between is ours to finish what we started, so a rolling deploy cuts no request.
 * Readiness goes first, so no new work is routed here; liveness (/health) stays up, so the process is
 * not killed for being busy draining.
 */
export function createGracefulShutdown(options: { timeoutMs: number; logger: Logger }): GracefulShutdown {
  const { timeoutMs, logger } = options;
  const inFlight = new Set<ServerResponse>();
  let attached: { server: Server; hooks: DrainHooks } | undefined;
  let draining = false;
  let force: (() => void) | undefined;
  let result: Promise<number> | undefined;

  const markClosing = (res: ServerResponse) => {
    // RFC 9112 §9.6: `Connection: close` tells the client this is the connection's last response, so it
    // reconnects (elsewhere) instead of reusing a socket we are about to close.
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };

  const run = async (server: Server, hooks: DrainHooks, reason: string): Promise<number> => {
    logger.info('draining', { reason, inFlight: inFlight.size, timeoutMs });
    for (const res of inFlight) markClosing(res);
    try {
      hooks.beforeDrain?.();
    } catch (error) {
      logger.warn('closing long-lived responses failed', { error: String(error) });
    }
    const closed = new Promise<'drained'>((resolve) => server.close(() => resolve('drained')));
    // Keep-alive sockets between requests would otherwise hold close() open until their idle timeout.
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      closed,
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs))),
      new Promise<'forced'>((resolve) => (force = () => resolve('forced'))),
    ]);
    clearTimeout(timer);
    if (outcome !== 'drained') {
      logger.warn('drain forced: closing open connections', { reason: outcome, inFlight: inFlight.size });
      server.closeAllConnections();
    }
    const released = await withBound(hooks.release(), RELEASE_BOUND_MS).then(
      () => true,
      (error: unknown) => {
        logger.warn('closing connections to storage failed', { error: String(error) });
        return false;
      },
    );
    const code = outcome === 'drained' && released ? 0 : 1;
    logger.info('stopped', { outcome, exitCode: code });
    return code;
  };

  return {
    get draining() {
      return draining;
    },
    attach(server, hooks) {
      attached = { server, hooks };
      // Prepended, so it runs before the app's own listener: it only records and marks, never answers.
      server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
        inFlight.add(res);
        if (draining) markClosing(res);
        res.once('close', () => {
          inFlight.delete(res);
          // A response whose headers went out before the drain promised keep-alive: its socket is idle now.
          if (draining) setImmediate(() => server.closeIdleConnections());
        });
      });
    },
    drain(reason) {
      if (result) {
        logger.warn('second stop request: forcing', { reason });
        force?.();
        return result;
      }
      draining = true;
      result = attached ? run(attached.server, attached.hooks, reason) : Promise.resolve(0); // a signal before listen: nothing is in flight
      return result;
    },
  };
}

/** SIGTERM (orchestrators) and SIGINT (Ctrl-C) drain, then exit with the drain's code; a second one forces. */
export function drainOnSignals(
  shutdown: GracefulShutdown,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  let exited = false;
  const exitOnce = (code: number) => {
    if (!exited) exit(code);
    exited = true;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => void shutdown.drain(signal).then(exitOnce));
  }
}

function withBound<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
