import { z } from 'zod';
import { ConfigError, createLogger, createPgPool, loadConfig } from '@acme/common';
import { authConfigSchema } from '../config';
import { seedDemo } from '../domain/admin/seed-demo';
import { buildAuthContext } from '../build-auth-context';
import { createIntrospectionCache } from '../storage/introspection-cache.store';

/**
 * `node dist/cli/seed-demo.js`: the idempotent demo seed for `npm start`, against the database of a
 * running (already migrated) auth-server. The caller supplies the secrets so that every run re-applies
 * the same values; this prints only what it created, never a secret.
 */
const seedEnvSchema = authConfigSchema.extend({
  DEMO_WEB_REDIRECT_URI: z.string().url(),
  DEMO_SPA_REDIRECT_URI: z.string().url(),
  DEMO_WEB_CLIENT_SECRET: z.string().min(32),
  DEMO_SEARCH_STORE_SECRET: z.string().min(32),
  DEMO_USER_PASSWORD: z.string().min(8),
});

async function main(): Promise<void> {
  const config = loadConfig(seedEnvSchema, process.env);
  const logger = createLogger({ service: 'auth-server-seed', level: 'warn' });
  const pool = createPgPool({
    connectionString: config.DATABASE_URL,
    max: 2,
    statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
  });
  try {
    const cache = createIntrospectionCache({ logger, localMs: 0, tombstoneSeconds: 60 });
    const ctx = buildAuthContext({ config, pool, logger, cache });
    const seed = await seedDemo(ctx, {
      webRedirectUri: config.DEMO_WEB_REDIRECT_URI,
      spaRedirectUri: config.DEMO_SPA_REDIRECT_URI,
      webClientSecret: config.DEMO_WEB_CLIENT_SECRET,
      searchStoreSecret: config.DEMO_SEARCH_STORE_SECRET,
      password: config.DEMO_USER_PASSWORD,
    });
    process.stdout.write(`${JSON.stringify({ created: seed.created })}\n`);
  } finally {
    await pool.end();
  }
}

void main().catch((error: unknown) => {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`seed-demo failed: ${message}\n`);
  process.exit(1);
});
