import { OAuthError } from '@acme/common';
import type { ResourceServer } from '../clients/resource-server';

/**
 * The access token's audience. RFC 8707 §2: each `resource` must be a registered resource server's
 * audience (else invalid_target); without `resource`, the resource servers that serve any requested
 * scope (RFC 9700 §2.3: audience-restricted tokens).
 */
export function resolveAudience(resources: string[], scopes: string[], servers: ResourceServer[]): string[] {
  if (resources.length > 0) {
    for (const resource of resources) {
      if (!servers.some((rs) => rs.audience === resource))
        throw new OAuthError('invalid_target', `unknown resource: ${resource}`);
    }
    return [...new Set(resources)];
  }
  return servers.filter((rs) => rs.scopes.some((s) => scopes.includes(s))).map((rs) => rs.audience);
}
