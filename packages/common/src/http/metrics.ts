import type { RequestHandler, Router } from 'express';
import express from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestObserver } from './request-prelude';
import { routePattern } from './route-pattern';

export interface Metrics {
  registry: Registry;
  /** Records count and latency per method, route pattern and status, on node's objects (request-prelude.ts). */
  observe: RequestObserver;
  /** `observe` as express middleware. */
  middleware: RequestHandler;
  /** GET /metrics in Prometheus text format. */
  router: Router;
  gauge(name: string, help: string, collect: () => number | Promise<number>): void;
  counter(name: string, help: string, labelNames?: string[]): Counter<string>;
  /** Connection-pool figures (pg.Pool: totalCount, idleCount, waitingCount) as db_pool_connections{state}. */
  poolGauges(pool: PoolFigures): void;
}

export interface PoolFigures {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** A registry per app instance (tests start many apps in one process; a global registry would collide). */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const observe: RequestObserver = (req, res, seen) => {
    const end = latency.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method ?? '', route: seen.route(), status: String(res.statusCode) };
      requests.inc(labels);
      end(labels);
    });
  };
  const middleware: RequestHandler = (req, res, next) => {
    observe(req, res, { requestId: req.id, route: () => routePattern(req) });
    next();
  };
  const router = express.Router();
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  });
  return {
    registry,
    observe,
    middleware,
    router,
    gauge(name, help, collect) {
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          this.set(await collect());
        },
      });
    },
    counter(name, help, labelNames = []) {
      return new Counter({ name, help, labelNames, registers: [registry] });
    },
    poolGauges(pool) {
      new Gauge({
        name: 'db_pool_connections',
        help: 'Postgres pool connections by state (total, idle, waiting clients)',
        labelNames: ['state'],
        registers: [registry],
        collect() {
          this.set({ state: 'total' }, pool.totalCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
        },
      });
    },
  };
}
