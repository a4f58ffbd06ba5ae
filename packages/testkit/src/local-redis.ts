import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { findBinary } from './find-binary';
import { findFreePort } from './free-port';
import { waitFor } from './local-postgres';

export interface LocalRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts `redis-server` from PATH on a free loopback port, without persistence, in a temp dir. */
export async function startLocalRedis(options: { port?: number } = {}): Promise<LocalRedis> {
  const binary = findBinary('redis-server');
  if (!binary) throw new Error('redis-server is not on PATH (apt-get install redis-server)');
  const dir = mkdtempSync(join(tmpdir(), 'acme-redis-'));
  const port = options.port ?? (await findFreePort());
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const tail: string[] = [];
  child.stdout?.on('data', (c: Buffer) => tail.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => tail.push(c.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (exited) throw new Error(`redis-server exited during start:\n${tail.join('').slice(-2000)}`);
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined); // refused while starting: the loop retries
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } finally {
      client.disconnect();
    }
  }, 15_000);
  return {
    url,
    port,
    async stop() {
      if (!exited) {
        const done = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await done;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
