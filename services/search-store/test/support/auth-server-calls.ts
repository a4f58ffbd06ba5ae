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
