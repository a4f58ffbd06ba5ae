import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import { findTokenHash } from '../tokens/find-token';
import { revokeGrants, revokeTokenHash } from './revoke';

/**
 * RFC 7009 §2.1: a client revokes one of its own tokens. An unknown or invalid token is not an error
 * (§2.2: 200). A refresh token takes its whole grant with it ("SHOULD also invalidate all access tokens
 * based on the same authorization grant"); an access token goes alone.
 */
export async function revokeToken(ctx: AuthContext, client: Client, token: string): Promise<void> {
  const hash = await findTokenHash(ctx, token);
  if (!hash) return;
  const record = await ctx.repos.tokens.findByHash(hash);
  if (!record) return;
  if (record.clientId !== client.clientId)
    throw new OAuthError('invalid_request', 'token was issued to another client');
  if (record.kind === 'refresh_token')
    await revokeGrants(ctx, { grant_id: record.grantId }, 'client_revocation');
  else await revokeTokenHash(ctx, hash, 'client_revocation');
}
