import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryTempDir, sweepStaleClusters } from '../src/memory-temp-dir';

describe('memoryTempDir', () => {
  const saved = process.env.ACME_TEST_TMPDIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.ACME_TEST_TMPDIR;
    else process.env.ACME_TEST_TMPDIR = saved;
  });

  it('takes /dev/shm only with room to spare, else the OS temp dir, and ACME_TEST_TMPDIR over both', () => {
    delete process.env.ACME_TEST_TMPDIR;
    expect(memoryTempDir(Number.MAX_SAFE_INTEGER)).toBe(tmpdir());
    expect([tmpdir(), '/dev/shm']).toContain(memoryTempDir());
    process.env.ACME_TEST_TMPDIR = '/somewhere';
    expect(memoryTempDir()).toBe('/somewhere');
  });
});

describe('sweepStaleClusters', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'sweep-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function cluster(name: string, options: { ageMs: number; pid?: number }): string {
    const dir = join(root, name);
    mkdirSync(join(dir, 'data'), { recursive: true });
    if (options.pid !== undefined)
      writeFileSync(join(dir, 'data', 'postmaster.pid'), `${options.pid}\n/data\n`);
    const at = (Date.now() - options.ageMs) / 1000;
    utimesSync(dir, at, at);
    return dir;
  }

  it('removes only old test clusters whose postmaster is gone', () => {
    const hour = 60 * 60 * 1000;
    const crashed = cluster('acme-pg-crashed', { ageMs: 2 * hour, pid: 2 ** 22 + 1 }); // above pid_max
    const noPid = cluster('acme-pg-nopid', { ageMs: 2 * hour });
    const running = cluster('acme-pg-running', { ageMs: 2 * hour, pid: process.pid });
    const young = cluster('acme-pg-young', { ageMs: 60_000 });
    const other = cluster('someone-else', { ageMs: 2 * hour });
    expect(sweepStaleClusters(root).sort()).toEqual([crashed, noPid].sort());
    expect([crashed, noPid, running, young, other].map((dir) => existsSync(dir))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});
