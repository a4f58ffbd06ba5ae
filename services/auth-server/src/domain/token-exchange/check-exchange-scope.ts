import { OAuthError } from '@acme/common';
import type { Client } from '../clients/client';
import { parseScope } from '../grants/parse-scope';
import type { TokenRecord } from '../tokens/token-record';

/**
 * RFC 8693 §2.1 `scope` and §5 (delegation must not widen access): the new token's scopes are a subset
 * of the subject token's and of the client's registered scopes (invalid_scope otherwise). Without
 * `scope`, the subject token's scopes the client may hold, less offline_access (no refresh token here).
 */
export function checkExchangeScope(
  scope: string | undefined,
  subject: TokenRecord,
  client: Client,
): string[] {
  const requested = parseScope(scope);
  if (requested.length > 0) {
    if (requested.some((s) => !subject.scopes.includes(s)))
      throw new OAuthError('invalid_scope', "scope exceeds the subject token's scope");
    if (requested.some((s) => !client.scopes.includes(s)))
      throw new OAuthError('invalid_scope', 'scope not allowed for this client');
    return requested;
  }
  const scopes = subject.scopes.filter((s) => s !== 'offline_access' && client.scopes.includes(s));
  if (scopes.length === 0)
    throw new OAuthError('invalid_scope', 'no scope of the subject token is allowed for this client');
  return scopes;
}
