import { existsSync } from 'node:fs';

/**
 * True when a container runtime answers (Docker socket, DOCKER_HOST, or a testcontainers config).
 * `TESTCONTAINERS_DISABLED=1` forces local servers. Asked once per process.
 */
let answer: Promise<boolean> | undefined;
export function isContainerRuntimeAvailable(): Promise<boolean> {
  answer ??= probe();
  return answer;
}

async function probe(): Promise<boolean> {
  if (process.env.TESTCONTAINERS_DISABLED === '1') return false;
  const hinted = Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
  if (!hinted) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await Promise.race([
      getContainerRuntimeClient(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('container runtime probe timed out')), 5000),
      ),
    ]);
    return true;
  } catch {
    return false;
  }
}
