import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Postgres refuses to run as root (it would hand a superuser process to anyone who can write SQL).
 * When we are root, run its binaries as an unprivileged OS user: `postgres` where Debian's package
 * created it, else a `pgrunner` user we create once.
 */
export function unprivilegedUser(): { uid: number; gid: number; name: string } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  for (const name of ['postgres', 'pgrunner']) {
    const ids = lookup(name);
    if (ids) return { ...ids, name };
  }
  execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'pgrunner']);
  const ids = lookup('pgrunner');
  if (!ids) throw new Error('could not create an unprivileged user to run Postgres');
  return { ...ids, name: 'pgrunner' };
}

function lookup(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

export function runAs(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const user = unprivilegedUser();
  return spawn(command, args, { ...options, ...(user ? { uid: user.uid, gid: user.gid } : {}) });
}

export function runAsSync(command: string, args: string[]): string {
  const user = unprivilegedUser();
  return execFileSync(command, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
}
