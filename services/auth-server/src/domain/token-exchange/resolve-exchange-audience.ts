import { OAuthError } from '@acme/common';
import type { Client } from '../clients/client';
import type { ResourceServer } from '../clients/resource-server';
import type { TokenRecord } from '../tokens/token-record';

/**
 * The exchanged token's audience (RFC 8693 §2.1 `resource` and `audience`, RFC 8707 §2). A client may
 * target only the resource servers that serve one of its registered scopes; any other target, or one
 * not registered at all, is invalid_target (RFC 8693 §2.2.2). Without a target the token keeps the
 * subject token's audience, narrowed to those servers: an exchange never widens the audience unasked.
 */
export function resolveExchangeAudience(
  targets: string[],
  subject: TokenRecord,
  client: Client,
  servers: ResourceServer[],
): string[] {
  const allowed = new Set(
    servers.filter((rs) => rs.scopes.some((s) => client.scopes.includes(s))).map((rs) => rs.audience),
  );
  if (targets.length > 0) {
    for (const target of targets) {
      if (!allowed.has(target))
        throw new OAuthError('invalid_target', `this client may not obtain tokens for ${target}`);
    }
    return [...new Set(targets)];
  }
  const audience = subject.audience.filter((aud) => allowed.has(aud));
  if (audience.length === 0)
    throw new OAuthError(
      'invalid_target',
      "none of the subject token's audience is open to this client: name one with resource or audience",
    );
  return audience;
}
