import type { Readable } from 'node:stream';
import { tooLarge } from './read-body';

export interface Line {
  text: string;
  /** 1-based line number in the body. */
  number: number;
  /** False only for the last piece of a body that does not end with `\n`. */
  terminated: boolean;
}

/**
 * Splits a request stream into lines as the bytes arrive (never the whole body as one string); bytes
 * are cut at `\n` only, so multi-byte UTF-8 characters stay whole. More than `maxBytes` → 413.
 */
export async function* readLines(stream: Readable, maxBytes: number): AsyncGenerator<Line> {
  let carry = Buffer.alloc(0);
  let total = 0;
  let number = 0;
  // destroyOnReturn false: leaving early (413) must not destroy the socket the answer goes out on.
  for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      stream.resume();
      throw tooLarge(maxBytes);
    }
    let buffer = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let newline = buffer.indexOf(10);
    while (newline !== -1) {
      number += 1;
      yield {
        text: buffer.subarray(0, newline).toString('utf8').replace(/\r$/, ''),
        number,
        terminated: true,
      };
      buffer = buffer.subarray(newline + 1);
      newline = buffer.indexOf(10);
    }
    carry = Buffer.from(buffer);
  }
  if (carry.length > 0) {
    number += 1;
    yield { text: carry.toString('utf8'), number, terminated: false };
  }
}
