import { StatementQueue } from '../../src/storage/statement-queue';

/** A statement stand-in: records when it is sent and ends when the test says so. */
function statement(log: string[], name: string) {
  let end!: (value: string) => void;
  let fail!: (error: Error) => void;
  const send = () => {
    log.push(`send ${name}`);
    return new Promise<string>((resolve, reject) => {
      end = (value) => {
        log.push(`end ${name}`);
        resolve(value);
      };
      fail = (error) => {
        log.push(`fail ${name}`);
        reject(error);
      };
    });
  };
  return { send, end: (v: string) => end(v), fail: (e: Error) => fail(e) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('StatementQueue', () => {
  it('sends each statement only once the one before it has ended, in the order queued', async () => {
    const log: string[] = [];
    const queue = new StatementQueue();
    const a = statement(log, 'a');
    const b = statement(log, 'b');
    const c = statement(log, 'c');
    const results = [queue.add(a.send), queue.add(b.send), queue.add(c.send)];
    await settle();
    expect(log).toEqual(['send a']);
    a.end('A');
    await settle();
    expect(log).toEqual(['send a', 'end a', 'send b']);
    b.end('B');
    await settle();
    c.end('C');
    await expect(Promise.all(results)).resolves.toEqual(['A', 'B', 'C']);
    expect(log).toEqual(['send a', 'end a', 'send b', 'end b', 'send c', 'end c']);
  });

  it('sends nothing after a failure: the later statements reject with its error', async () => {
    const log: string[] = [];
    const queue = new StatementQueue();
    const a = statement(log, 'a');
    const b = statement(log, 'b');
    const first = queue.add(a.send);
    const second = queue.add(b.send);
    await settle();
    a.fail(new Error('division by zero'));
    await expect(first).rejects.toThrow('division by zero');
    await expect(second).rejects.toThrow('division by zero');
    expect(log).toEqual(['send a', 'fail a']);
  });

  it('sends a statement queued after the others ended at once', async () => {
    const log: string[] = [];
    const queue = new StatementQueue();
    const a = statement(log, 'a');
    const done = queue.add(a.send);
    await settle();
    a.end('A');
    await done;
    const b = statement(log, 'b');
    const later = queue.add(b.send);
    await settle();
    expect(log).toEqual(['send a', 'end a', 'send b']);
    b.end('B');
    await expect(later).resolves.toBe('B');
  });
});
