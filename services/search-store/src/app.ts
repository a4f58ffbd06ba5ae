import express, { type RequestHandler } from 'express';
import type { Pool } from 'pg';
import {
  accessLine,
  createMetrics,
  esErrorHandler,
  frontHandler,
  healthRouter,
  requestPrelude,
  type FrontHandler,
  type Logger,
} from '@acme/common';
import { analyzeRouter } from './api/analyze.route';
import { documentStoreRouter } from './api/document-store.router';
import { searchFrontRoute } from './api/lean-search';
import { searchRouter } from './api/search.route';
import { msearchRouter } from './api/msearch.route';
import { createSearchRunner } from './search/searcher';
import type { SearchConfig } from './config';
import { formatResponse } from './http/format-response';
import { noHandler } from './http/no-handler';
import { readJsonBody } from './http/read-body';
import type { IndexWriter } from './index/index-writer';
import { PostingsCache } from './search/fast-match/postings-cache';
import type { SearchOptions } from './search/search-options';
import type { ScriptRunner } from './script/script-runner';
import { SearchContexts } from './search/contexts/search-contexts';
import { scrollRouter } from './api/scroll.route';
import { pitRouter } from './api/pit.route';
import type { ReplicaSet } from './storage/replica-set';

export interface SearchDeps {
  config: SearchConfig;
  pool: Pool;
  /** The fast search path's connections (storage/fast-search-pool.ts); `pool` when absent. */
  fastPool?: Pool;
  logger: Logger;
  /** The search engine's writer, called inside every document write's transaction. */
  indexWriter: IndexWriter;
  /** Runs update scripts; without it a scripted update answers 400. */
  scriptRunner?: ScriptRunner;
  /**
   * Authentication and scope checks (src/auth/authenticateRequest in production). Required, so no
   * wiring can forget it; API contract tests pass a fixed full-access principal instead.
   */
  authenticate: RequestHandler;
  /** How searches run (tests: the SQL plans only, a lower runtime-field limit); the defaults when absent. */
  searchOptions?: SearchOptions;
  /** auth-server's revocation push, when subscribed: reported as a gauge, never a readiness check. */
  revocationStream?: { readonly connected: boolean };
  /** True while the process drains before exit: /ready answers 503 (main.ts, graceful-shutdown). */
  draining?: () => boolean;
  /**
   * Scroll and point-in-time contexts (search/contexts/): main.ts makes them to close them on
   * shutdown; absent, the app makes its own (holder connections open only when a context does).
   */
  searchContexts?: SearchContexts;
  /** Read replicas (storage/replica-set.ts, started by main.ts): searches there, refresh waits for them. */
  replicas?: ReplicaSet;
}

/**
 * Builds the app without listening: tests start it on port 0 against a real Postgres. The result is
 * node's request listener (frontHandler, @acme/common): the usual POST /<index>/_search in front of
 * express (api/lean-search.ts), everything else through express.
 */
export function createApp(deps: SearchDeps): FrontHandler {
  const app = express();
  // Before anything touches app.router (express builds it on first use): paths are case-sensitive, as
  // Elasticsearch's PathTrie. `/_Cluster/settings` must not reach the cluster settings API (issue 17).
  app.set('case sensitive routing', true);
  app.disable('x-powered-by');
  app.set('etag', false);
  const metrics = createMetrics('search-store');
  metrics.poolGauges(deps.pool);
  const stream = deps.revocationStream;
  if (stream) {
    metrics.gauge('revocation_stream_connected', '1 while subscribed to auth-server revocations', () =>
      stream.connected ? 1 : 0,
    );
  }
  // Elasticsearch clients refuse any response without X-Elastic-Product (ProductNotSupportedError).
  // The same first steps on both paths: that header, the request id, access line and metrics.
  const prelude = requestPrelude({
    headers: { 'X-Elastic-Product': 'Elasticsearch' },
    observers: [accessLine(deps.logger), metrics.observe],
  });
  const formatting = formatResponse();
  const errors = esErrorHandler(deps.logger);
  const searchDeps = {
    pool: deps.pool,
    fastPool: deps.fastPool,
    options: deps.searchOptions,
    postingsCache: new PostingsCache(deps.config.SEARCH_POSTINGS_CACHE_MB * 2 ** 20),
    contexts:
      deps.searchContexts ??
      new SearchContexts(deps.pool, { maxHolders: deps.config.SEARCH_CONTEXT_HOLDERS }),
    replicas: deps.replicas,
  };
  app.use(prelude.middleware);
  app.use(
    healthRouter({
      checks: {
        postgres: async () => void (await deps.pool.query('SELECT 1')),
        ...deps.replicas?.readinessChecks(),
      },
      // A lagging or lost replica is reported (status "degraded"); the primary still serves its searches.
      optional: Object.keys(deps.replicas?.readinessChecks() ?? {}),
      draining: deps.draining,
    }),
  );
  app.use(metrics.router);
  app.use(formatting);
  app.use(deps.authenticate);
  app.use(readJsonBody(deps.config.MAX_REQUEST_BYTES));
  // Before the routes whose `/:index` would take `_pit` or `_search` (DELETE /_pit is not an index delete).
  app.use(pitRouter(searchDeps));
  app.use(scrollRouter(searchDeps));
  app.use(searchRouter(searchDeps));
  app.use(msearchRouter(searchDeps, deps.config.MAX_REQUEST_BYTES));
  app.use(analyzeRouter({ pool: deps.pool }));
  app.use(documentStoreRouter(deps));
  app.use(noHandler());
  app.use(errors);
  // The usual POST /<index>/_search is answered before express (api/lean-search.ts).
  const search = searchFrontRoute(app, {
    run: createSearchRunner(searchDeps),
    authenticate: deps.authenticate,
    maxBytes: deps.config.MAX_REQUEST_BYTES,
  });
  return frontHandler(app, { prelude, routes: [search], errorHandler: errors, beforeError: [formatting] });
}
