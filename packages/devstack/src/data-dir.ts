import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Where npm start keeps its data: `.data/` at the repo root. When we run as root, Postgres runs as an
 * unprivileged user that must be able to traverse every parent folder; a checkout under /root is not
 * traversable, so the data then lives under /var/tmp keyed by the checkout's path.
 */
export function chooseDataDir(repoRoot: string, runningAsRoot: boolean): string {
  const preferred = join(repoRoot, '.data');
  if (!runningAsRoot || isTraversableByOthers(repoRoot)) return preferred;
  const key = createHash('sha256').update(resolve(repoRoot)).digest('hex').slice(0, 12);
  return join('/var/tmp', `acme-devstack-${key}`);
}

function isTraversableByOthers(path: string): boolean {
  let current = resolve(path);
  for (;;) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}
