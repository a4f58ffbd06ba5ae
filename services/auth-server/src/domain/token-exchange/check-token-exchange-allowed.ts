import { OAuthError } from '@acme/common';
import type { Client } from '../clients/client';
import { TOKEN_EXCHANGE_GRANT_TYPE } from './token-exchange';

/**
 * RFC 8693 §2.1 and RFC 6749 §5.2 unauthorized_client: token exchange is for services delegating a
 * user's access to another service, so only a confidential client that registered the grant type
 * (admin API or CLI: `grant_types` lists it) may use it, as Keycloak's per-client switch does.
 */
export function checkTokenExchangeAllowed(client: Client): void {
  if (client.clientType !== 'confidential' || !client.grantTypes.includes(TOKEN_EXCHANGE_GRANT_TYPE))
    throw new OAuthError('unauthorized_client', 'token exchange is not allowed for this client');
}
