import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from './client';
import {
  JWT_BEARER_ASSERTION_TYPE,
  verifyClientAssertion,
  type ClientAssertionDeps,
} from './verify-client-assertion';

export interface PresentedCredentials {
  /** From Authorization: Basic, already form-url-decoded (RFC 6749 §2.3.1). */
  basic?: { id: string; secret: string };
  clientId?: string;
  clientSecret?: string;
  /** RFC 7521 §4.2: client_assertion_type and client_assertion (RFC 7523 private_key_jwt). */
  clientAssertionType?: string;
  clientAssertion?: string;
}

export const INVALID_CLIENT = new OAuthError('invalid_client', 'client authentication failed', {
  'WWW-Authenticate': 'Basic realm="auth-server", charset="UTF-8"',
});

/**
 * RFC 6749 §2.3: client_secret_basic or client_secret_post (one method per request, §2.3.1), or a
 * private_key_jwt assertion (RFC 7523 §2.2); public clients identify with client_id alone. A client
 * uses the method it registered: secrets are refused for a private_key_jwt client and assertions for
 * the others. Failures are 401 invalid_client with WWW-Authenticate (§5.2).
 */
export async function authenticateClient(
  ctx: AuthContext,
  presented: PresentedCredentials,
  assertions: ClientAssertionDeps,
): Promise<Client> {
  const assertion = presented.clientAssertion !== undefined || presented.clientAssertionType !== undefined;
  if (
    (presented.basic || assertion) &&
    (presented.clientSecret !== undefined ||
      (presented.basic && assertion) ||
      (presented.basic && presented.clientId && presented.clientId !== presented.basic.id))
  )
    throw new OAuthError('invalid_request', 'use exactly one client authentication method');
  if (assertion) return authenticateByAssertion(ctx, presented, assertions);
  const clientId = presented.basic?.id ?? presented.clientId;
  const secret = presented.basic?.secret ?? presented.clientSecret;
  if (!clientId) throw INVALID_CLIENT.with({ description: 'client authentication required' });
  const client = await ctx.repos.clients.findById(clientId);
  if (client?.clientType === 'public' && secret === undefined) return client;
  const ok = ctx.hasher.verify(secret ?? '', client?.secretHash);
  // An assertion client (private_key_jwt, client_secret_jwt) may not fall back to sending a secret.
  const secretClient =
    client?.tokenEndpointAuthMethod !== 'private_key_jwt' &&
    client?.tokenEndpointAuthMethod !== 'client_secret_jwt';
  if (!client || client.clientType !== 'confidential' || !secretClient || secret === undefined || !ok) {
    ctx.audit('client_auth_failure', { client_id: clientId });
    throw INVALID_CLIENT;
  }
  return client;
}

async function authenticateByAssertion(
  ctx: AuthContext,
  presented: PresentedCredentials,
  assertions: ClientAssertionDeps,
): Promise<Client> {
  if (presented.clientAssertionType !== JWT_BEARER_ASSERTION_TYPE || !presented.clientAssertion)
    throw INVALID_CLIENT.with({
      description: 'unsupported client_assertion_type or missing client_assertion',
    });
  const result = await verifyClientAssertion(ctx, assertions, presented.clientAssertion);
  // RFC 7521 §4.2: a client_id sent alongside must name the assertion's client.
  if ('client' in result && (!presented.clientId || presented.clientId === result.client.clientId))
    return result.client;
  const [clientId, reason] =
    'client' in result ? [result.client.clientId, 'client_id_mismatch'] : [result.clientId, result.failure];
  ctx.audit('client_auth_failure', { client_id: presented.clientId ?? clientId, reason });
  throw INVALID_CLIENT;
}
