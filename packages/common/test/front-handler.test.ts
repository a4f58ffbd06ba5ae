import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { frontHandler, frontRoute } from '../src/http/front-handler';
import { requestPrelude } from '../src/http/request-prelude';

/** frontHandler: front routes answer on node's objects after the same prelude as express; express the rest. */
describe('frontHandler', () => {
  let base: string;
  let close: () => Promise<void>;
  const seen: string[] = [];
  const served: string[] = [];
  beforeAll(async () => {
    const app = express();
    const prelude = requestPrelude({
      headers: { 'x-product': 'acme' },
      observers: [
        (req, res, s) => res.on('finish', () => seen.push(`${req.method} ${s.route()} ${s.requestId}`)),
      ],
    });
    app.use(prelude.middleware);
    app.get('/items/:id', (_req, res) => void res.status(418).send('express'));
    const errors: ErrorRequestHandler = (error: Error, req, res, _next) => {
      res.status(400).json({ error: error.message, id: req.id, formatted: res.locals.formatted === true });
    };
    app.use(errors);
    const front = frontHandler(app, {
      prelude,
      routes: [
        frontRoute({
          match: (req) =>
            req.method === 'POST' && req.url?.startsWith('/items/') ? req.url.slice(7) : undefined,
          route: () => '/items/:id',
          serve: async (req, res, id) => {
            if (id === 'reject') throw new Error('rejected');
            // node's own objects: express's prototypes were never put on them.
            served.push(`${id} ${req.id} ${typeof (req as { get?: unknown }).get}`);
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end('front');
          },
        }),
        frontRoute({
          match: (req) => (req.url === '/throws' ? true : undefined),
          route: () => '/throws',
          serve: () => {
            throw new Error('thrown');
          },
        }),
      ],
      errorHandler: errors,
      beforeError: [(_req, res, next) => ((res.locals.formatted = true), next())],
    });
    const server = front.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());
  beforeEach(() => {
    seen.length = 0;
    served.length = 0;
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it.each([
    ['POST', 'front', 200, 'front'],
    ['GET', 'express', 418, 'express'],
  ])(
    '%s /items/7 (%s): same header, request id echoed, observed under the route pattern',
    async (method, _path, status, text) => {
      const response = await fetch(`${base}/items/7`, { method, headers: { 'x-request-id': 'abc-1' } });
      expect([response.status, await response.text()]).toEqual([status, text]);
      expect(response.headers.get('x-product')).toBe('acme');
      expect(response.headers.get('x-request-id')).toBe('abc-1');
      await settle();
      expect(seen).toEqual([`${method} /items/:id abc-1`]);
    },
  );

  it('answers a taken request on node objects and gives it a new id when none was sent', async () => {
    const response = await fetch(`${base}/items/9`, { method: 'POST' });
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(served).toEqual([`9 ${id} undefined`]);
  });

  it.each([
    ['/items/reject', 'rejected'],
    ['/throws', 'thrown'],
  ])(
    'hands an error of %s to the app error handler on express objects, after beforeError',
    async (path, message) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'x-request-id': 'err-1' },
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: message, id: 'err-1', formatted: true });
      expect(response.headers.get('x-product')).toBe('acme');
    },
  );
});
