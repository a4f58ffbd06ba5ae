import { EsError } from '@acme/common';
import { formatTaskId, nodeIdOf, parseTaskId } from '../../src/tasks/task-id';
import { ByQueryGate } from '../../src/write/by-query/by-query-gate';

describe('task ids (ES TaskId)', () => {
  it.each([
    ['abc:1', { nodeId: 'abc', number: 1 }],
    ['oTUltX4IQMOUUVeiohTt8A:124', { nodeId: 'oTUltX4IQMOUUVeiohTt8A', number: 124 }],
    [':7', { nodeId: '', number: 7 }],
  ])('reads %s', (text, id) => {
    expect(parseTaskId(text)).toEqual(id);
    expect(formatTaskId(id)).toBe(text);
  });

  it.each(['foo', 'foo:', 'foo:bar', 'a:1:2', 'a:1.5', 'a:99999999999999999999'])('refuses %s', (text) => {
    expect(() => parseTaskId(text)).toThrow(
      new EsError('illegal_argument_exception', `malformed task id ${text}`),
    );
  });

  it('derives a stable 22-character node id from the node name', () => {
    expect(nodeIdOf('node-1')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(nodeIdOf('node-1')).toBe(nodeIdOf('node-1'));
    expect(nodeIdOf('node-2')).not.toBe(nodeIdOf('node-1'));
  });
});

describe('ByQueryGate', () => {
  it('runs at most its capacity at once and lets the waiters in, in order', async () => {
    const gate = new ByQueryGate(2);
    const order: string[] = [];
    const first = await gate.acquire();
    const second = await gate.acquire();
    const third = gate.acquire().then((release) => (order.push('third'), release));
    const fourth = gate.acquire().then((release) => (order.push('fourth'), release));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    first();
    first(); // a second call frees nothing more
    const releaseThird = await third;
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['third']);
    second();
    (await fourth)();
    releaseThird();
    expect(order).toEqual(['third', 'fourth']);
  });
});
