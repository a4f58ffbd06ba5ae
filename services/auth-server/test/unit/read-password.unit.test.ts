import { PassThrough } from 'node:stream';
import { readPassword, type PasswordInput } from '../../src/cli/read-password';

describe('readPassword', () => {
  it('takes the first line of piped stdin, without its CR/LF', async () => {
    const input = new PassThrough();
    input.end('pass word 1\r\nsecond line\n');
    await expect(readPassword({ kind: 'stdin' }, { input, output: new PassThrough() })).resolves.toBe(
      'pass word 1',
    );
  });

  it('prompts on a terminal in raw mode, echoes nothing of what is typed and honours backspace', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[] }) as PassThrough &
      PasswordInput & { modes: boolean[] };
    input.setRawMode = (mode: boolean) => input.modes.push(mode);
    const output = new PassThrough();
    const shown: string[] = [];
    output.on('data', (chunk: Buffer) => shown.push(chunk.toString()));
    const read = readPassword({ kind: 'stdin' }, { input, output });
    input.write('hunter22x\u007f\r');
    await expect(read).resolves.toBe('hunter22');
    expect(shown.join('')).toBe('password: \n');
    expect(input.modes).toEqual([true, false]);
  });

  it('refuses an empty password and one past 4096 bytes', async () => {
    const empty = new PassThrough();
    empty.end('\n');
    await expect(
      readPassword({ kind: 'stdin' }, { input: empty, output: new PassThrough() }),
    ).rejects.toThrow('no password given');
    const long = new PassThrough();
    long.end('x'.repeat(5000));
    await expect(readPassword({ kind: 'stdin' }, { input: long, output: new PassThrough() })).rejects.toThrow(
      'too long',
    );
  });
});
