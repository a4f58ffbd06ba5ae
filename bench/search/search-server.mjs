// search-store from its compiled dist/, as main.ts wires it (both pools), except authentication: every request acts as a
// principal holding all search scopes (auth is not what this benchmark measures; bench/introspection does).
// Env: DATABASE_URL, PORT. Run as a child process so the bench can read its peak RSS from /proc.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = join(root, 'services/search-store/dist');
const common = require(join(root, 'packages/common/dist/index.js'));
const { createApp } = require(join(dist, 'app.js'));
const { searchConfigSchema } = require(join(dist, 'config.js'));
const { createIndexWriter } = require(join(dist, 'index/index-writer.js'));
const { createScriptRunner } = require(join(dist, 'script/script-runner.js'));
const { createFastSearchPool } = require(join(dist, 'storage/fast-search-pool.js'));

const grantAll = (req, _res, next) => {
  req.principal = {
    subject: 'bench',
    clientId: 'bench',
    scopes: ['search.read', 'search.write', 'search.admin'],
    audience: ['search-store'],
    source: 'introspection',
  };
  next();
};

const config = common.loadConfig(searchConfigSchema, {
  ...process.env,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  AUTH_SERVER_URL: 'http://127.0.0.1:1',
  INTROSPECTION_CLIENT_ID: 'unused',
  INTROSPECTION_CLIENT_SECRET: 'unused-unused-unused',
});
const logger = common.createLogger({ service: 'search-store', level: config.LOG_LEVEL });
await common.runMigrations({
  databaseUrl: config.DATABASE_URL,
  dir: join(root, 'services/search-store/src/storage/migrations'),
  table: 'search_migrations',
  logger,
});
// The same pools as main.ts: every connection with the configured statement timeout.
const database = {
  connectionString: config.DATABASE_URL,
  statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
};
const pool = common.createPgPool({ ...database, max: 20 });
const fastPool = createFastSearchPool({ ...database, max: 10 });
const app = createApp({
  config,
  pool,
  fastPool,
  logger,
  indexWriter: createIndexWriter(),
  scriptRunner: createScriptRunner(),
  authenticate: grantAll,
});
app.listen(config.PORT, config.HOST);
process.on('SIGTERM', () => process.exit(0));
