import { Pool } from 'pg';

export interface PgPoolOptions {
  connectionString: string;
  max: number;
  /**
   * Postgres `statement_timeout` for every statement of every connection: past it Postgres cancels the
   * statement (SQLSTATE 57014) and the request fails instead of holding a backend for minutes.
   */
  statementTimeoutMs: number;
  /** More `-c name=value` settings for each connection (the fast search pool's plan cache mode). */
  options?: string;
}

/**
 * How often (ms) a backend running a statement checks that its client is still connected. A request
 * whose client left gets its connection destroyed (api/client-gone.ts), and a crashed process loses all
 * of its connections: without the check, Postgres would run their statements to the end.
 */
const CLIENT_CONNECTION_CHECK_MS = 1000;

/**
 * Every Postgres pool of both services and their CLIs comes from here, so no connection runs without a
 * statement timeout. Both settings go in the startup packet: no extra round trip per connection, and
 * nothing a statement can forget.
 */
export function createPgPool(options: PgPoolOptions): Pool {
  const settings = [
    `-c statement_timeout=${Math.trunc(options.statementTimeoutMs)}`,
    `-c client_connection_check_interval=${CLIENT_CONNECTION_CHECK_MS}`,
    options.options,
  ];
  return new Pool({
    connectionString: options.connectionString,
    max: options.max,
    options: settings.filter(Boolean).join(' '),
  });
}
