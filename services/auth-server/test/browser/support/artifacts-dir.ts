import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * services/auth-server/test-artifacts/<name>, created: screenshots are kept as artifacts to look at
 * (gitignored), never compared as golden images.
 */
export function artifactsDir(name: string): string {
  const dir = join(__dirname, '..', '..', '..', 'test-artifacts', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
