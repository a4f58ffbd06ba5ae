import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import express, { type Response } from 'express';
import { openRawRequest } from '@acme/testkit';
import { createGracefulShutdown, createLogger, healthRouter, type GracefulShutdown } from '../src';

/**
 * The shared drain (issue 17) on a real http.Server: express with the production health router and one
 * route whose response the test holds open, standing in for a slow request.
 */
describe('createGracefulShutdown', () => {
  let server: Server;
  let port: number;
  let shutdown: GracefulShutdown;
  let held: Response[];
  let released: string[];

  async function start(timeoutMs: number, release?: () => Promise<unknown>): Promise<void> {
    held = [];
    released = [];
    shutdown = createGracefulShutdown({
      timeoutMs,
      logger: createLogger({ service: 'test', level: 'error', stream: new PassThrough() }),
    });
    const app = express();
    app.use(healthRouter({ checks: { db: async () => undefined }, draining: () => shutdown.draining }));
    app.get('/slow', (_req, res) => void held.push(res));
    app.get('/fast', (_req, res) => void res.send('fast'));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    shutdown.attach(server, {
      release: release ?? (async () => void released.push(`released with ${held.length} held`)),
    });
  }

  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

  const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: test\r\n\r\n`;
  const heldCount = async (n: number) => {
    while (held.length < n) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('turns /ready off, keeps /health, finishes the in-flight request with Connection: close, then releases and resolves 0', async () => {
    await start(10_000);
    const slow = await openRawRequest(port, get('/slow'));
    await heldCount(1);
    // Busy sockets (a request under way), the only kind a drain keeps: idle ones are closed.
    const ready = await openRawRequest(port, 'GET /ready HTTP/1.1\r\n');
    const health = await openRawRequest(port, 'GET /health HTTP/1.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));

    const exitCode = shutdown.drain('SIGTERM');
    expect(shutdown.draining).toBe(true);
    await expect(fetch(`http://127.0.0.1:${port}/fast`)).rejects.toThrow(); // no new connections

    ready.write('Host: test\r\n\r\n');
    const readyReply = await ready.response;
    expect(readyReply?.status).toBe(503);
    expect(JSON.parse(readyReply?.body ?? '')).toEqual({ status: 'draining', checks: {} });
    expect(readyReply?.headers.get('connection')).toBe('close');
    health.write('Host: test\r\n\r\n');
    const healthReply = await health.response;
    expect(healthReply?.status).toBe(200);
    expect(healthReply?.headers.get('connection')).toBe('close');

    expect(released).toEqual([]); // still draining: the slow request holds it open
    held[0]!.send('slow done');
    const slowReply = await slow.response;
    expect(slowReply).toMatchObject({ status: 200, body: 'slow done' });
    expect(slowReply?.headers.get('connection')).toBe('close');
    await expect(exitCode).resolves.toBe(0);
    expect(released).toEqual(['released with 1 held']);
    await slow.closed;
  });

  it('closes idle keep-alive connections at once instead of waiting for their idle timeout', async () => {
    await start(10_000);
    const idle = await openRawRequest(port, get('/fast'));
    const first = await idle.response;
    expect(first?.headers.get('connection')).toBe('keep-alive');

    const started = Date.now();
    await expect(shutdown.drain('SIGTERM')).resolves.toBe(0);
    await idle.closed;
    expect(Date.now() - started).toBeLessThan(1000); // keepAliveTimeout is 5 s
  });

  it('forces the drain at the timeout: cuts the held request, still releases, resolves 1', async () => {
    await start(200);
    const slow = await openRawRequest(port, get('/slow'));
    await heldCount(1);
    const started = Date.now();
    await expect(shutdown.drain('SIGTERM')).resolves.toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    await expect(slow.response).resolves.toBeUndefined();
    expect(released).toEqual(['released with 1 held']);
  });

  it('forces the drain on a second stop request, resolving both with 1', async () => {
    await start(10_000);
    const slow = await openRawRequest(port, get('/slow'));
    await heldCount(1);
    const first = shutdown.drain('SIGTERM');
    const second = shutdown.drain('SIGINT');
    await expect(Promise.all([first, second])).resolves.toEqual([1, 1]);
    await expect(slow.response).resolves.toBeUndefined();
  });

  it('resolves 1 when closing storage fails after an otherwise clean drain', async () => {
    await start(10_000, () => Promise.reject(new Error('pool already ended')));
    await expect(shutdown.drain('SIGTERM')).resolves.toBe(1);
  });
});
