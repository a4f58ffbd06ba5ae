import { Readable } from 'node:stream';
import { readLines, type Line } from '../../src/http/read-lines';

async function collect(chunks: Buffer[], max = 1024): Promise<Line[]> {
  const out: Line[] = [];
  for await (const line of readLines(Readable.from(chunks), max)) out.push(line);
  return out;
}

describe('readLines (streamed NDJSON)', () => {
  it('splits lines across chunk boundaries without breaking multi-byte characters', async () => {
    const bytes = Buffer.from('{"a":"é€"}\n{"b":1}\n', 'utf8');
    const chunks = [bytes.subarray(0, 8), bytes.subarray(8, 9), bytes.subarray(9)]; // cuts inside "€"
    expect(await collect(chunks)).toEqual([
      { text: '{"a":"é€"}', number: 1, terminated: true },
      { text: '{"b":1}', number: 2, terminated: true },
    ]);
  });

  it('marks a last line without newline as unterminated', async () => {
    expect(await collect([Buffer.from('a\nb')])).toEqual([
      { text: 'a', number: 1, terminated: true },
      { text: 'b', number: 2, terminated: false },
    ]);
  });

  it('stops with 413 content_too_long_exception once the stream passes the limit', async () => {
    const chunks = Array.from({ length: 10 }, () => Buffer.from('x'.repeat(50) + '\n'));
    await expect(collect(chunks, 200)).rejects.toMatchObject({
      type: 'content_too_long_exception',
      status: 413,
    });
  });
});
