import type { Json } from './oauth-helpers';
import { basic, postForm } from './oauth-helpers';
import type { RunningAuthServer } from './start-auth-server';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

type DeviceClient = { clientId: string; secret?: string };

/** Basic for a confidential client, client_id in the body for a public one (RFC 8628 §3.1). */
function authenticate(
  client: DeviceClient,
  form: Record<string, string>,
): { form: Record<string, string>; headers: Record<string, string> } {
  return client.secret
    ? { form, headers: { authorization: basic(client.clientId, client.secret) } }
    : { form: { client_id: client.clientId, ...form }, headers: {} };
}

/** POST /device_authorization. */
export function requestDeviceCode(
  server: RunningAuthServer,
  client: DeviceClient,
  form: Record<string, string>,
) {
  const request = authenticate(client, form);
  return postForm(`${server.url}/device_authorization`, request.form, request.headers);
}

/** A started device authorization: its response body, asserted 200. */
export async function startDevice(server: RunningAuthServer, client: DeviceClient, scope: string) {
  const response = await requestDeviceCode(server, client, { scope });
  if (response.status !== 200)
    throw new Error(`device authorization failed: ${JSON.stringify(response.body)}`);
  return response.body as Json & { device_code: string; user_code: string };
}

/** One poll at /token with the device code. */
export function pollDevice(server: RunningAuthServer, client: DeviceClient, deviceCode: string) {
  const request = authenticate(client, { grant_type: DEVICE_GRANT, device_code: deviceCode });
  return postForm(`${server.url}/token`, request.form, request.headers);
}

/** The stored row of a device authorization, found by its client (each test makes its own client). */
export async function deviceRows(server: RunningAuthServer, clientId: string) {
  const { rows } = await server.pool.query<Record<string, unknown>>(
    'SELECT * FROM device_authorizations WHERE client_id = $1 ORDER BY created_at',
    [clientId],
  );
  return rows;
}

/** Makes the next poll of this client's requests count as on time (as if the interval had passed). */
export async function letIntervalPass(server: RunningAuthServer, clientId: string) {
  await server.pool.query(
    `UPDATE device_authorizations SET last_polled_at = last_polled_at - interval '1 hour'
      WHERE client_id = $1 AND last_polled_at IS NOT NULL`,
    [clientId],
  );
}
