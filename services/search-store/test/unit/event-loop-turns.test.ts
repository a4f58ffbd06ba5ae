import { EventLoopTurns } from '../../src/storage/event-loop-turns';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('EventLoopTurns', () => {
  it('says a turn is due only once the slice has passed since the last one', async () => {
    const turns = new EventLoopTurns(5);
    expect(turns.due()).toBe(false);
    busy(6);
    expect(turns.due()).toBe(true);
    await turns.give();
    expect(turns.due()).toBe(false);
  });

  it('lets I/O callbacks that were waiting run during the turn', async () => {
    const turns = new EventLoopTurns(1);
    let ran = false;
    // A timer stands for a socket read: both run in a phase of the loop that a microtask never reaches.
    setTimeout(() => (ran = true), 0);
    busy(5);
    await Promise.resolve();
    expect(ran).toBe(false);
    await turns.give();
    await turns.give();
    expect(ran).toBe(true);
  });
});
