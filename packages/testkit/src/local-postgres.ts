import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { findBinary } from './find-binary';
import { findFreePort } from './free-port';
import { runAs, runAsSync, unprivilegedUser } from './run-as';

export interface LocalPostgres {
  /** Superuser URL of the `postgres` database. */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

export interface LocalPostgresOptions {
  /** Keep data here across runs (npm start); a fresh temp dir when absent (tests). */
  dataDir?: string;
  port?: number;
  /** Trade durability for speed (tests only): fsync, synchronous_commit and full_page_writes off. */
  ephemeral?: boolean;
  /** Where the temp data dir goes when `dataDir` is absent (default: the OS temp dir). */
  tempRoot?: string;
  /** Where the server's own log goes; kept in memory (last lines) when absent. */
  logFile?: string;
  /**
   * Postgres's `shared_buffers` (default 256MB, enough for the tests). A bulk load into a large index
   * needs the btrees it inserts into at random to stay in the buffers: bench/search sizes it for 1M
   * documents, whose `posting_blocks` primary key alone is ~400 MB during the load.
   */
  sharedBuffers?: string;
}

/** Starts a Postgres server from the binaries on PATH (or /usr/lib/postgresql/N/bin) on a loopback port. */
export async function startLocalPostgres(options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
  const sharedBuffers = options.sharedBuffers ?? '256MB';
  if (!/^\d+(kB|MB|GB)$/.test(sharedBuffers))
    throw new Error(`sharedBuffers "${sharedBuffers}" is not like 256MB`);
  const initdb = findBinary('initdb');
  const postgres = findBinary('postgres');
  if (!initdb || !postgres) throw new Error('Postgres server binaries (initdb, postgres) are not on PATH');
  const user = unprivilegedUser();
  const temporary = !options.dataDir;
  const dataDir =
    options.dataDir ?? join(mkdtempSync(join(options.tempRoot ?? tmpdir(), 'acme-pg-')), 'data');
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (user) chownSync(dataDir, user.uid, user.gid);
    if (temporary && user) chownSync(join(dataDir, '..'), user.uid, user.gid);
    runAsSync(initdb, [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
    ]);
  }
  const port = options.port ?? (await findFreePort());
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
  ];
  args.push('-c', 'max_connections=300', '-c', `shared_buffers=${sharedBuffers}`);
  if (options.ephemeral)
    args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const child = runAs(postgres, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    if (options.logFile) writeFileSync(options.logFile, text, { flag: 'a' });
    tail.push(...text.split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 40));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitFor(async () => {
    if (exited) throw new Error(`postgres exited during start:\n${tail.join('\n')}`);
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } finally {
      await client.end().catch(() => undefined);
    }
  }, 30_000);
  return {
    url,
    port,
    dataDir,
    async stop() {
      if (!exited) {
        const done = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT'); // "fast" shutdown: roll back open transactions, checkpoint, exit
        await done;
      }
      if (temporary) rmSync(join(dataDir, '..'), { recursive: true, force: true });
    },
  };
}

export async function waitFor(probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('postgres exited')) throw error;
      if (error instanceof Error && error.message.startsWith('redis-server exited')) throw error;
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms: ${String(lastError)}`);
}
