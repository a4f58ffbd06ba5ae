import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import express from 'express';
import { accessLog, createLogger } from '../src';

async function requestWithLogLevel(level: string): Promise<Record<string, unknown>[]> {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  const app = express();
  app.use(accessLog(createLogger({ service: 'test', level, stream })));
  app.get('/items/:id', (_req, res) => {
    res.status(204).end();
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/items/42?secret=x`);
    expect(res.status).toBe(204);
    await new Promise((resolve) => setImmediate(resolve));
    return lines;
  } finally {
    server.close();
  }
}

describe('accessLog', () => {
  it('writes one line with the route pattern and status, never the query, at level info', async () => {
    const lines = await requestWithLogLevel('info');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ kind: 'access', method: 'GET', route: '/items/:id', status: 204 });
    expect(JSON.stringify(lines[0])).not.toContain('secret');
  });

  it('writes nothing and does no per-request work when the level is above info', async () => {
    expect(await requestWithLogLevel('warn')).toEqual([]);
  });
});
