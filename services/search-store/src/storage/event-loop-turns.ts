import { setImmediate } from 'node:timers/promises';

/**
 * Turns of the event loop given back during long synchronous work, so that node-pg keeps Postgres
 * busy: the next statement queued on a client is sent only when Node reads the previous one's
 * ReadyForQuery, and a queued COPY's rows only when it reads its CopyInResponse. Work that held the
 * loop for 100 ms after the dictionary statement left Postgres idle for those 100 ms (issue 6).
 *
 * `due()` is cheap enough to call every few dozen rows; `give()` yields when it says so.
 */
export class EventLoopTurns {
  private last = performance.now();

  constructor(private readonly sliceMs = 3) {}

  due(): boolean {
    return performance.now() - this.last >= this.sliceMs;
  }

  async give(): Promise<void> {
    await setImmediate();
    this.last = performance.now();
  }
}
