import { UnpackBuffers } from '../../src/search/fast-match/unpack-buffers';

/** One turn of the event loop: retired arrays are free after it. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('UnpackBuffers', () => {
  it('hands out fresh arrays until arrays are retired, and those only from the next turn on', async () => {
    const buffers = new UnpackBuffers(1 << 20);
    const a = buffers.take(100);
    expect(a.docs.length).toBe(100);
    expect(a.freqs.length).toBe(100);
    buffers.retire(a.docs, a.freqs);
    // The search that read them may still be scoring in this turn.
    const b = buffers.take(100);
    expect(b.docs.buffer).not.toBe(a.docs.buffer);
    expect(buffers.bytes).toBe(0);
    await turn();
    expect(buffers.bytes).toBe(1200);
    const c = buffers.take(60);
    expect(c.docs.buffer).toBe(a.docs.buffer);
    expect(c.freqs.buffer).toBe(a.freqs.buffer);
    expect([c.docs.length, c.freqs.length]).toEqual([60, 60]);
    expect(buffers.bytes).toBe(0);
  });

  it('gives the smallest free pair that holds a list and is at most twice its size', async () => {
    const buffers = new UnpackBuffers(1 << 20);
    const pairs = [300, 100, 180].map((n) => buffers.take(n));
    for (const p of pairs) buffers.retire(p.docs, p.freqs);
    await turn();
    const [p300, p100, p180] = pairs;
    expect(buffers.take(90).docs.buffer).toBe(p100!.docs.buffer);
    expect(buffers.take(90).docs.buffer).toBe(p180!.docs.buffer);
    // 300 is more than twice 90: a long list's arrays are not spent on a short one.
    expect(buffers.take(90).docs.buffer).not.toBe(p300!.docs.buffer);
    expect(buffers.take(150).docs.buffer).toBe(p300!.docs.buffer);
  });

  it('keeps free arrays up to its bound and leaves the rest to the garbage collector', async () => {
    const buffers = new UnpackBuffers(12 * 100);
    const a = buffers.take(100);
    const b = buffers.take(100);
    buffers.retire(a.docs, a.freqs);
    buffers.retire(b.docs, b.freqs);
    await turn();
    expect(buffers.bytes).toBe(1200);
    expect(buffers.take(100).docs.buffer).toBe(a.docs.buffer);
    expect(buffers.take(100).docs.buffer).not.toBe(b.docs.buffer);
  });
});
