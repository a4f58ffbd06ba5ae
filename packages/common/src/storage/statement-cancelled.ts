/**
 * Whether Postgres cancelled the statement (SQLSTATE 57014 query_canceled): it ran past the pool's
 * statement_timeout (create-pg-pool.ts), or it was cancelled on purpose. Not a bug and not a lost
 * database: the error handlers answer it apart from both.
 */
export function isStatementCancelled(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '57014';
}
