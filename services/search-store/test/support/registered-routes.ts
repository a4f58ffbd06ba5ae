import type { Express } from 'express';
import { Pool } from 'pg';
import { createLogger } from '@acme/common';
import { createApp } from '../../src/app';
import { guardedAccess, type RouteAccess } from '../../src/auth/route-scope';
import { searchConfigSchema } from '../../src/config';
import { fullAccessPrincipal } from './full-access-principal';
import { createRecordingIndexWriter } from './recording-index-writer';

export interface RegisteredRoute {
  method: string;
  path: string;
  /** The access the route's first handler enforces; undefined when its first handler is no scope guard. */
  access: RouteAccess | undefined;
}

export interface Layer {
  route?: { path: string; methods: Record<string, boolean>; stack: { handle: unknown }[] };
  handle: unknown;
}

export interface RouterLike {
  stack: Layer[];
  caseSensitive?: boolean;
}

/** The app createApp builds, never listening and never querying (its pool points nowhere). */
export function buildIdleApp(): { app: Express; close(): Promise<void> } {
  const config = searchConfigSchema.parse({
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    AUTH_SERVER_URL: 'http://127.0.0.1:1',
    INTROSPECTION_CLIENT_ID: 'search-store',
    INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
  });
  const pool = new Pool({ connectionString: config.DATABASE_URL });
  const app = createApp({
    config,
    pool,
    logger: createLogger({ service: 'search-store', silent: true }),
    indexWriter: createRecordingIndexWriter(),
    authenticate: fullAccessPrincipal,
  });
  return { app: app.express, close: () => pool.end() };
}

/** Every route express would dispatch to, found by walking the app's router and the routers mounted in it. */
export function registeredRoutes(app: Express): { routes: RegisteredRoute[]; routers: RouterLike[] } {
  const routes: RegisteredRoute[] = [];
  const routers: RouterLike[] = [];
  const walk = (router: RouterLike) => {
    routers.push(router);
    for (const layer of router.stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) {
          routes.push({
            method: method.toUpperCase(),
            path: layer.route.path,
            access: guardedAccess(layer.route.stack[0]?.handle),
          });
        }
      } else if (Array.isArray((layer.handle as Partial<RouterLike>).stack)) {
        walk(layer.handle as RouterLike);
      }
    }
  };
  walk((app as unknown as { router: RouterLike }).router);
  return { routes, routers };
}
