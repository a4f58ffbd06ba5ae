import { accessSync, constants, readdirSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** statfs(2)'s f_type for tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

/**
 * Where a throwaway test cluster lives: /dev/shm when it is a tmpfs with `minBytes` free, else the
 * OS temp dir. A test run creates ~100 databases (~8 MB of catalog each, and as much WAL); on a
 * shared disk each CREATE DATABASE took 35-200 ms against ~30 ms in memory, and removing the
 * cluster at the end took 5-45 s. Containers often give /dev/shm only 64 MB: then the disk.
 * `ACME_TEST_TMPDIR` chooses the folder.
 */
export function memoryTempDir(minBytes = 4 * 2 ** 30): string {
  if (process.env.ACME_TEST_TMPDIR) return process.env.ACME_TEST_TMPDIR;
  try {
    const fs = statfsSync('/dev/shm');
    accessSync('/dev/shm', constants.W_OK);
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= minBytes) return '/dev/shm';
  } catch {
    // No /dev/shm (macOS, Windows) or not writable.
  }
  return tmpdir();
}

/**
 * Removes test clusters that runs interrupted before their teardown (Ctrl-C) left in `root`: in
 * memory they would hold RAM until reboot. Only `acme-pg-*` folders an hour old whose postmaster is
 * not running: another run's live cluster is never touched.
 */
export function sweepStaleClusters(root: string, now = Date.now()): string[] {
  const swept: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root).filter((name) => name.startsWith('acme-pg-'));
  } catch {
    return swept;
  }
  for (const name of names) {
    const dir = join(root, name);
    try {
      if (now - statSync(dir).mtimeMs < STALE_AFTER_MS || postmasterRunning(join(dir, 'data'))) continue;
      rmSync(dir, { recursive: true, force: true });
      swept.push(dir);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return swept;
}

const STALE_AFTER_MS = 60 * 60 * 1000;

function postmasterRunning(dataDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
