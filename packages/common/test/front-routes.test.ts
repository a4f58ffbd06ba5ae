import express from 'express';
import type { AddressInfo } from 'node:net';
import { frontRoute, serveBeforeExpress } from '../src/http/front-routes';

/** serveBeforeExpress: a route answers what it matches on node's objects; express answers the rest. */
describe('serveBeforeExpress', () => {
  let base: string;
  let close: () => Promise<void>;
  const served: string[] = [];
  beforeAll(async () => {
    const app = express();
    serveBeforeExpress(app, [
      frontRoute({
        match: (req) => (req.method === 'POST' && req.url === '/hot' ? { path: req.url } : undefined),
        serve: (req, res, params) => {
          // node's own objects: express's prototypes were never put on them.
          served.push(`${params.path} ${typeof (req as { get?: unknown }).get}`);
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('front');
        },
      }),
    ]);
    app.use((_req, res) => void res.status(418).send('express'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  it('answers a matched request before express, on node objects', async () => {
    const response = await fetch(`${base}/hot`, { method: 'POST' });
    expect([response.status, await response.text()]).toEqual([200, 'front']);
    expect(served).toEqual(['/hot undefined']);
  });

  it.each([
    ['GET', '/hot'],
    ['POST', '/hot?x=1'],
    ['POST', '/cold'],
  ])('hands %s %s to express', async (method, path) => {
    const response = await fetch(`${base}${path}`, { method });
    expect([response.status, await response.text()]).toEqual([418, 'express']);
  });
});
