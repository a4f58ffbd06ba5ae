import { OAuthError } from '@acme/common';
import type { Client } from '../clients/client';
import { DEVICE_CODE_GRANT_TYPE } from './device-authorization';

/**
 * RFC 8628 §3.1/§3.4 and RFC 6749 §5.2 unauthorized_client: a client uses the device grant only when it
 * registered the grant type (admin API or CLI: `grant_types` lists it), as Keycloak's per-client switch
 * and node-oidc-provider's `grant_types` metadata do.
 */
export function checkDeviceGrantAllowed(client: Client): void {
  if (!client.grantTypes.includes(DEVICE_CODE_GRANT_TYPE))
    throw new OAuthError(
      'unauthorized_client',
      'the device authorization grant is not allowed for this client',
    );
}
