import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { StatementQueue } from './statement-queue';

/**
 * Streams text-format COPY lines: for a 5,000-document bulk that is ~10⁴–10⁵ rows, where COPY is
 * several times faster than INSERT … unnest (API-NOTES §A3.2 step 3). Lines are generated while
 * Postgres parses the previous chunks (the server works on the other core).
 */
export async function copyLines(client: PoolClient, sql: string, lines: Iterable<string>): Promise<void> {
  const stream = client.query(copyFrom(sql));
  const done = finished(stream);
  // Write in chunks of about 256 KB: no huge strings, and the server starts parsing early.
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length > 256_000) {
      if (!stream.write(chunk)) await once(stream, 'drain');
      chunk = '';
    }
  }
  stream.end(chunk);
  await done;
}

/** A COPY statement with its rows already rendered (built while Postgres runs another statement). */
export interface RenderedCopy {
  sql: string;
  text: string;
}

/** Sends a rendered COPY (through the caller's queue when it has one: `StatementQueue`). */
export async function sendCopy(
  client: PoolClient,
  copy: RenderedCopy,
  queue = new StatementQueue(),
): Promise<void> {
  if (copy.text.length > 0) await queue.add(() => copyChunks(client, copy.sql, [copy.text]));
}

/** Runs a COPY whose data is all rendered: everything is written to the stream at once. */
export function copyChunks(
  client: PoolClient,
  sql: string,
  chunks: readonly (string | Buffer)[],
): Promise<void> {
  const stream = client.query(copyFrom(sql));
  const done = finished(stream);
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return done;
}

/** A text value in COPY's text format: backslash, newline, carriage return and tab escaped. */
export function copyText(value: string): string {
  return /[\\\n\r\t]/.test(value)
    ? value.replace(/[\\\n\r\t]/g, (c) =>
        c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t',
      )
    : value;
}
