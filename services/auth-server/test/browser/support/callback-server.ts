import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CallbackServer {
  /** Origin, e.g. http://127.0.0.1:41234 */
  origin: string;
  /** Query parameters of every request to /cb, in order. */
  received: URLSearchParams[];
  /** Serves this HTML at the given path (for a cross-site attacker page). */
  page(path: string, body: string): void;
  stop(): Promise<void>;
}

/** A local relying-party stand-in: records what arrives at /cb and answers a small page. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URLSearchParams[] = [];
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/cb') {
      received.push(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>callback received</h1>');
      return;
    }
    const page = pages.get(url.pathname);
    if (page) res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    page: (path, body) => void pages.set(path, body),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
