import type { RunningServer } from './servers';

export default async function globalTeardown(): Promise<void> {
  const servers = (globalThis as { __acmeServers?: RunningServer[] }).__acmeServers ?? [];
  await Promise.all(servers.map((server) => server.stop()));
}
