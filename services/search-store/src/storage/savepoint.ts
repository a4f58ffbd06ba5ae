import type { Queryable } from './queryable';

/**
 * Savepoints inside the caller's transaction: a step that may have to be redone without some rows
 * (reindex drops the documents the destination mapping refuses) rolls back to its savepoint only.
 * `name` is ours, never the user's: it is written into the statement.
 */
export async function setSavepoint(db: Queryable, name: 'reindex_copy'): Promise<void> {
  await db.query(`SAVEPOINT ${name}`);
}

export async function rollbackToSavepoint(db: Queryable, name: 'reindex_copy'): Promise<void> {
  await db.query(`ROLLBACK TO SAVEPOINT ${name}`);
}
