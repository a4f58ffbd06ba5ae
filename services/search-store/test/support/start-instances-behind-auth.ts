import { startAuthServer, type RunningAuthServer } from '../../../auth-server/test/support/start-auth-server';
import { registerSearchStore } from './auth-server-calls';
import { startSearchStore, type RunningSearchStore } from './start-search-store';

export interface InstancesBehindAuth {
  auth: RunningAuthServer;
  /** A confidential client_credentials client with scope search.read. */
  client: { client_id: string; client_secret: string };
  instances: RunningSearchStore[];
}

/**
 * A real auth-server (issuer a URL, as DPoP's htu needs) and two search-store instances registered
 * with it as one resource server (registerSearchStore), each started with `env` on top, so that what
 * one instance remembers the other must share.
 */
export async function startInstancesBehindAuth(
  clientName: string,
  env: Record<string, string>,
): Promise<InstancesBehindAuth> {
  const auth = await startAuthServer({}, { issuerIsUrl: true });
  const registered = await registerSearchStore(auth, clientName);
  const config = { ...registered.env, ...env };
  const instances = [
    await startSearchStore(config, { auth: 'real' }),
    await startSearchStore(config, { auth: 'real' }),
  ];
  return { auth, client: registered.client, instances };
}

export async function stopInstancesBehindAuth({ auth, instances }: Partial<InstancesBehindAuth>) {
  await Promise.all((instances ?? []).map((instance) => instance.stop()));
  await auth?.stop();
}
