import express, { type Router } from 'express';

/** A readiness check: resolves when the dependency answers, rejects (or times out) when it does not. */
export type ReadinessCheck = () => Promise<void>;

export interface HealthOptions {
  checks: Record<string, ReadinessCheck>;
  /** Dependencies whose failure degrades the service without making it unready (e.g. a cache). */
  optional?: string[];
  timeoutMs?: number;
  /** True while the process drains before exit (graceful-shutdown.ts): /ready answers 503 at once. */
  draining?: () => boolean;
}

/**
 * GET /health: liveness (the process serves HTTP). GET /ready: every required dependency answers;
 * 503 lists which do not. Optional dependencies report "degraded" with 200. While the process drains,
 * /ready is 503 whatever the dependencies say and /health stays 200 (the process is alive, just leaving).
 */
export function healthRouter(options: HealthOptions): Router {
  const router = express.Router();
  const timeoutMs = options.timeoutMs ?? 2000;
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    if (options.draining?.()) {
      res.status(503).json({ status: 'draining', checks: {} });
      return;
    }
    const entries = await Promise.all(
      Object.entries(options.checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), timeoutMs);
          return [name, 'up'] as const;
        } catch {
          return [name, 'down'] as const;
        }
      }),
    );
    const checks = Object.fromEntries(entries);
    const requiredDown = entries.some(
      ([name, state]) => state === 'down' && !options.optional?.includes(name),
    );
    const anyDown = entries.some(([, state]) => state === 'down');
    res.status(requiredDown ? 503 : 200).json({
      status: requiredDown ? 'unavailable' : anyDown ? 'degraded' : 'ready',
      checks,
    });
  });
  return router;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
