import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from './client';

export interface PresentedCredentials {
  /** From Authorization: Basic, already form-url-decoded (RFC 6749 §2.3.1). */
  basic?: { id: string; secret: string };
  clientId?: string;
  clientSecret?: string;
}

export const INVALID_CLIENT = new OAuthError('invalid_client', 'client authentication failed', {
  'WWW-Authenticate': 'Basic realm="auth-server", charset="UTF-8"',
});

/**
 * RFC 6749 §2.3: client_secret_basic or client_secret_post (one method per request, §2.3.1); public
 * clients identify with client_id alone. Failures are 401 invalid_client with WWW-Authenticate (§5.2).
 */
export async function authenticateClient(ctx: AuthContext, presented: PresentedCredentials): Promise<Client> {
  if (
    presented.basic &&
    (presented.clientSecret !== undefined ||
      (presented.clientId && presented.clientId !== presented.basic.id))
  )
    throw new OAuthError('invalid_request', 'use exactly one client authentication method');
  const clientId = presented.basic?.id ?? presented.clientId;
  const secret = presented.basic?.secret ?? presented.clientSecret;
  if (!clientId) throw INVALID_CLIENT.with({ description: 'client authentication required' });
  const client = await ctx.repos.clients.findById(clientId);
  if (client?.clientType === 'public' && secret === undefined) return client;
  const ok = ctx.hasher.verify(secret ?? '', client?.secretHash);
  if (!client || client.clientType !== 'confidential' || secret === undefined || !ok) {
    ctx.audit('client_auth_failure', { client_id: clientId });
    throw INVALID_CLIENT;
  }
  return client;
}
