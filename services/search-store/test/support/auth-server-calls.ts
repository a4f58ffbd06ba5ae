import { uniqueId } from '@acme/testkit';
import type { RunningAuthServer } from '../../../auth-server/test/support/start-auth-server';
import { dpopProof, type DpopKey } from '../../../auth-server/test/support/dpop-helpers';

/** POST to auth-server's admin API with its admin token; expects 200 or 201. */
export async function authAdminPost(auth: RunningAuthServer, path: string, body: object): Promise<unknown> {
  const response = await fetch(`${auth.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth.config.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect([200, 201]).toContain(response.status);
  return response.json();
}

/**
 * A client_credentials access token from auth-server's /token, bound to `key` with a DPoP proof when
 * given (RFC 9449 §5); expects token_type DPoP (bound) or Bearer.
 */
export async function clientCredentialsToken(
  auth: RunningAuthServer,
  client: { client_id: string; client_secret: string },
  key: DpopKey | undefined,
): Promise<string> {
  const response = await fetch(`${auth.url}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...(key ? { dpop: dpopProof(key, { htu: `${auth.config.ISSUER}/token` }) } : {}),
    },
    body: 'grant_type=client_credentials',
  });
  const body = (await response.json()) as { access_token: string; token_type: string };
  expect(body.token_type).toBe(key ? 'DPoP' : 'Bearer');
  return body.access_token;
}

/**
 * Registers a search-store resource server (serving `rsScopes`) and a confidential client_credentials
 * client (scope search.read) at auth-server; returns the client and the environment that points a
 * search-store at auth-server as that resource server, its introspection cache off.
 */
export async function registerSearchStore(
  auth: RunningAuthServer,
  clientName: string,
  rsScopes: string[] = ['search.read'],
): Promise<{ client: { client_id: string; client_secret: string }; env: Record<string, string> }> {
  const suffix = uniqueId();
  const rs = (await authAdminPost(auth, '/admin/resource-servers', {
    id: `search-store-${suffix}`,
    audience: `https://search-${suffix}.example`,
    scopes: rsScopes,
  })) as { id: string; secret: string };
  const client = (await authAdminPost(auth, '/admin/clients', {
    name: `${clientName} ${suffix}`,
    client_type: 'confidential',
    grant_types: ['client_credentials'],
    response_types: [],
    scopes: ['search.read'],
  })) as { client_id: string; client_secret: string };
  return {
    client,
    env: {
      AUTH_SERVER_URL: auth.url,
      INTROSPECTION_CLIENT_ID: rs.id,
      INTROSPECTION_CLIENT_SECRET: rs.secret,
      INTROSPECTION_CACHE_MAX_SECONDS: '0',
    },
  };
}
