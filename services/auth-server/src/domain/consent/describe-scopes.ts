/** Words for the standard scopes (OIDC Core §5.4, §11) and the product's search scopes. */
const SCOPE_WORDS: Record<string, string> = {
  openid: 'Confirm your identity (sign you in)',
  profile: 'See your profile: name, username and picture',
  email: 'See your email address',
  address: 'See your postal address',
  phone: 'See your phone number',
  offline_access: 'Stay connected while you are away (keep access until you revoke it)',
  'search.read': 'Search and read documents',
  'search.write': 'Create, change and delete documents',
  'search.admin': 'Manage search indices',
};

export interface ScopeDescription {
  scope: string;
  description: string;
}

/** Every requested scope gets a line: an unknown scope is named as-is rather than hidden. */
export function describeScopes(scopes: readonly string[]): ScopeDescription[] {
  return scopes.map((scope) => ({
    scope,
    description: SCOPE_WORDS[scope] ?? `Use the "${scope}" permission`,
  }));
}
