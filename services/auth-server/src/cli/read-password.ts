import { readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';

/** A password longer than this is refused rather than buffered without bound. */
const MAX_PASSWORD_BYTES = 4096;

export interface PasswordInput extends Readable {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Where `users create` reads the password from; never argv, which every user of the host can list. */
export type PasswordSource = { kind: 'stdin' } | { kind: 'file'; path: string };

/**
 * The password from a file (first line), from a terminal (prompted on `output`, typed without echo), or
 * from piped stdin (first line). A trailing CR/LF is not part of the password.
 */
export async function readPassword(
  source: PasswordSource,
  io: { input: PasswordInput; output: Writable },
): Promise<string> {
  if (source.kind === 'file') return firstLine(await readFile(source.path, 'utf8'));
  if (io.input.isTTY && io.input.setRawMode) return promptWithoutEcho(io.input, io.output);
  return firstLine(await readAll(io.input));
}

function firstLine(text: string): string {
  if (Buffer.byteLength(text) > MAX_PASSWORD_BYTES && !text.slice(0, MAX_PASSWORD_BYTES).includes('\n'))
    throw new Error('the password is too long');
  const line = /^[^\r\n]*/.exec(text)![0];
  if (!line) throw new Error('no password given');
  return line;
}

async function readAll(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of input) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    chunks.push(buffer);
    bytes += buffer.length;
    // The first line is all we need; stop reading once it is there or the input is too long.
    if (buffer.includes(0x0a) || bytes > MAX_PASSWORD_BYTES) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function promptWithoutEcho(input: PasswordInput, output: Writable): Promise<string> {
  output.write('password: ');
  input.setRawMode!(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode!(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else if (!typed) reject(new Error('no password given'));
      else resolve(typed);
    };
    const onData = (data: string) => {
      for (const ch of data) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (typed.length < MAX_PASSWORD_BYTES) typed += ch;
      }
    };
    input.on('data', onData);
  });
}
