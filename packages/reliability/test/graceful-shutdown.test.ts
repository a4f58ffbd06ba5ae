import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startServiceProcess, type ServiceProcess } from '@acme/devstack/dist/service-process';
import {
  createTestDatabase,
  findFreePort,
  openRawRequest,
  testRedisUrl,
  type RawRequest,
} from '@acme/testkit';
import { repoRoot } from '../src/stack';

/**
 * SIGTERM on the built services (dist/main.js, as an orchestrator stops them; issue 17): /ready turns 503
 * while a request already under way finishes, answered with `Connection: close`, and the process exits 0;
 * a request still open at SHUTDOWN_TIMEOUT_MS is cut and the process exits 1.
 */
interface Target {
  name: string;
  start(extraEnv: Record<string, string>): Promise<ServiceProcess>;
  /** The head and first half of a request the service only answers once the body is complete. */
  slowRequest: { head: string; firstHalf: string; secondHalf: string; status: number };
}

const half = (body: string) => [body.slice(0, body.length >> 1), body.slice(body.length >> 1)] as const;

const authTokenBody = 'grant_type=client_credentials&scope=openid';
const [authFirst, authSecond] = half(authTokenBody);
const searchDocBody = JSON.stringify({ title: 'arrives in two parts', n: 1 });
const [searchFirst, searchSecond] = half(searchDocBody);
const BEARER = 'shutdown-test-token';

/** auth-server's /token_info for search-store's process (nock cannot reach another process). */
let stubAuth: Server;
let stubAuthUrl: string;

beforeAll(async () => {
  stubAuth = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const active = new URLSearchParams(body).get('token') === BEARER;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify(
          active
            ? {
                active: true,
                scope: 'search.read search.write search.admin',
                client_id: 'shutdown-test',
                exp: Math.floor(Date.now() / 1000) + 3600,
              }
            : { active: false },
        ),
      );
    });
  });
  stubAuth.listen(0, '127.0.0.1');
  await once(stubAuth, 'listening');
  stubAuthUrl = `http://127.0.0.1:${(stubAuth.address() as AddressInfo).port}`;
});
afterAll(() => {
  stubAuth.close();
});

const targets: Target[] = [
  {
    name: 'auth-server',
    async start(extraEnv) {
      const port = await findFreePort();
      return startServiceProcess({
        name: 'auth-server',
        script: join(repoRoot, 'services/auth-server/dist/main.js'),
        port,
        quiet: process.env.RELIABILITY_VERBOSE !== '1',
        env: {
          ISSUER: `http://127.0.0.1:${port}`,
          DATABASE_URL: await createTestDatabase('shutdown_auth'),
          REDIS_URL: testRedisUrl(),
          TOKEN_SIGNING_SECRET: randomBytes(32).toString('base64url'),
          ADMIN_TOKEN: randomBytes(32).toString('base64url'),
          LOG_LEVEL: 'error',
          ...extraEnv,
        },
      });
    },
    slowRequest: {
      // An unknown client: 401 invalid_client, but only after the form body has arrived.
      head:
        'POST /token HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
        `Authorization: Basic ${Buffer.from('nobody:nothing').toString('base64')}\r\n` +
        `Content-Length: ${authTokenBody.length}\r\n\r\n`,
      firstHalf: authFirst,
      secondHalf: authSecond,
      status: 401,
    },
  },
  {
    name: 'search-store',
    async start(extraEnv) {
      return startServiceProcess({
        name: 'search-store',
        script: join(repoRoot, 'services/search-store/dist/main.js'),
        port: await findFreePort(),
        quiet: process.env.RELIABILITY_VERBOSE !== '1',
        env: {
          DATABASE_URL: await createTestDatabase('shutdown_search'),
          AUTH_SERVER_URL: stubAuthUrl,
          INTROSPECTION_CLIENT_ID: 'search-store',
          INTROSPECTION_CLIENT_SECRET: randomBytes(16).toString('hex'),
          REVOCATION_STREAM: 'off',
          LOG_LEVEL: 'error',
          ...extraEnv,
        },
      });
    },
    slowRequest: {
      head:
        'PUT /shutdown-test/_doc/1 HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${BEARER}\r\nContent-Length: ${searchDocBody.length}\r\n\r\n`,
      firstHalf: searchFirst,
      secondHalf: searchSecond,
      status: 201,
    },
  },
];

function exitCode(service: ServiceProcess): Promise<number | null> {
  const { child } = service;
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Resolves once the service no longer accepts connections: the drain has begun. */
async function listenerClosed(url: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      await fetch(`${url}/health`);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('still accepting connections 10 s after SIGTERM');
}

async function underWay(port: number, target: Target): Promise<RawRequest> {
  const request = await openRawRequest(port, target.slowRequest.head + target.slowRequest.firstHalf);
  // Long enough for the service to run the route up to the body read (search-store also introspects).
  await new Promise((resolve) => setTimeout(resolve, 300));
  return request;
}

describe.each(targets)('$name on SIGTERM', (target) => {
  let service: ServiceProcess | undefined;
  afterEach(async () => {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await exitCode(service);
    }
    service = undefined;
  });

  it('turns /ready to 503, finishes the request under way with Connection: close, and exits 0', async () => {
    service = await target.start({ SHUTDOWN_TIMEOUT_MS: '20000' });
    const port = Number(new URL(service.url).port);
    const slow = await underWay(port, target);
    // Sockets in the middle of a request head are busy, so the drain keeps them: they ask after SIGTERM.
    const ready = await openRawRequest(port, 'GET /ready HTTP/1.1\r\n');
    const health = await openRawRequest(port, 'GET /health HTTP/1.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 300)); // parsed before the signal, or they are idle
    const exited = exitCode(service);

    service.child.kill('SIGTERM');
    await listenerClosed(service.url);
    ready.write('Host: test\r\n\r\n');
    const readyReply = await ready.response;
    expect(readyReply?.status).toBe(503);
    expect(JSON.parse(readyReply?.body ?? 'null')).toMatchObject({ status: 'draining' });
    health.write('Host: test\r\n\r\n');
    expect((await health.response)?.status).toBe(200);

    slow.write(target.slowRequest.secondHalf);
    const reply = await slow.response;
    expect(reply?.status).toBe(target.slowRequest.status);
    expect(reply?.headers.get('connection')).toBe('close');
    await expect(exited).resolves.toBe(0);
  }, 90_000);

  it('cuts a request still open at SHUTDOWN_TIMEOUT_MS and exits 1', async () => {
    service = await target.start({ SHUTDOWN_TIMEOUT_MS: '300' });
    const port = Number(new URL(service.url).port);
    const slow = await underWay(port, target);
    const exited = exitCode(service);
    const started = Date.now();

    service.child.kill('SIGTERM');
    await expect(exited).resolves.toBe(1);
    expect(Date.now() - started).toBeLessThan(4000);
    await expect(slow.response).resolves.toBeUndefined();
  }, 90_000);
});
