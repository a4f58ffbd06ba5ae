import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

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

export async function sendCopy(client: PoolClient, copy: RenderedCopy): Promise<void> {
  if (copy.text.length > 0) await copyLines(client, copy.sql, [copy.text]);
}

/** A text value in COPY's text format: backslash, newline, carriage return and tab escaped. */
export function copyText(value: string): string {
  return /[\\\n\r\t]/.test(value)
    ? value.replace(/[\\\n\r\t]/g, (c) =>
        c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t',
      )
    : value;
}
