import { OAuthError } from '@acme/common';

/** RFC 6749 §3.3: space-delimited scope-tokens of %x21 / %x23-5B / %x5D-7E. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export function parseScope(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  const scopes = scope.split(' ').filter(Boolean);
  if (scopes.some((s) => !SCOPE_TOKEN.test(s))) throw new OAuthError('invalid_scope', 'malformed scope');
  return [...new Set(scopes)];
}
