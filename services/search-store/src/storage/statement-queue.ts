/**
 * Statements for one client, each sent as soon as the one before it has ended, without waiting for
 * the code that queued them: the writer queues a batch's statements as soon as each is rendered, and
 * Postgres runs them back to back while Node renders the next (index/save-analyzed-batch.ts). node-pg
 * queues too, but deprecates calling `query` on a busy client (removed in pg@9).
 *
 * A statement is sent from the microtask that settles the previous one, so right after node-pg reads
 * its ReadyForQuery. After a failure the later statements are not sent (the transaction is aborted
 * anyway): they reject with the same error. Every promise `add` returns must be awaited or handled.
 */
export class StatementQueue {
  private last: Promise<unknown> = Promise.resolve();

  add<T>(send: () => Promise<T>): Promise<T> {
    const next = this.last.then(send);
    this.last = next;
    return next;
  }
}
