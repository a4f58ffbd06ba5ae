import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Finds an executable on PATH, then in Debian's versioned Postgres folders
 * (/usr/lib/postgresql/<major>/bin), newest first. Returns undefined when absent.
 */
export function findBinary(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  const pgRoot = '/usr/lib/postgresql';
  if (existsSync(pgRoot)) {
    const majors = readdirSync(pgRoot)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const major of majors) {
      const candidate = join(pgRoot, major, 'bin', name);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}
